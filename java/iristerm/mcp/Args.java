package iristerm.mcp;

import iristerm.session.SessionException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A tool's arguments with typed access. Every complaint names the field, what it got, and what is
 * allowed, so an agent can correct its call.
 */
public final class Args {
    private final Map<String, Object> values;

    public Args(Map<String, Object> values) {
        this.values = values == null ? Map.of() : values;
    }

    public boolean has(String name) {
        return values.get(name) != null;
    }

    public String string(String name) {
        Object v = values.get(name);
        if (v == null) {
            return null;
        }
        if (!(v instanceof String s)) {
            throw bad(name, v, "a string");
        }
        return s;
    }

    public String requiredString(String name) {
        String s = string(name);
        if (s == null || s.isEmpty()) {
            throw new SessionException("'" + name + "' is required");
        }
        return s;
    }

    public String string(String name, String fallback) {
        String s = string(name);
        return s == null ? fallback : s;
    }

    public boolean bool(String name, boolean fallback) {
        Object v = values.get(name);
        if (v == null) {
            return fallback;
        }
        if (!(v instanceof Boolean b)) {
            throw bad(name, v, "true or false");
        }
        return b;
    }

    public long integer(String name, long fallback, long min, long max) {
        Object v = values.get(name);
        if (v == null) {
            return fallback;
        }
        if (!(v instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue())) {
            throw bad(name, v, "a whole number from " + min + " to " + max);
        }
        long l = n.longValue();
        if (l < min || l > max) {
            throw bad(name, v, "a whole number from " + min + " to " + max);
        }
        return l;
    }

    public List<String> strings(String name) {
        Object v = values.get(name);
        if (v == null) {
            return List.of();
        }
        if (!(v instanceof List<?> list)) {
            throw bad(name, v, "an array of strings");
        }
        List<String> out = new ArrayList<>();
        for (Object o : list) {
            if (!(o instanceof String s)) {
                throw bad(name, v, "an array of strings");
            }
            out.add(s);
        }
        return out;
    }

    public List<Object> list(String name) {
        Object v = values.get(name);
        if (v == null) {
            return List.of();
        }
        if (!(v instanceof List<?> list)) {
            throw bad(name, v, "an array");
        }
        return new ArrayList<>(list);
    }

    public Map<String, String> stringMap(String name) {
        Object v = values.get(name);
        if (v == null) {
            return Map.of();
        }
        if (!(v instanceof Map<?, ?> map)) {
            throw bad(name, v, "an object of string values");
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : map.entrySet()) {
            if (!(e.getValue() instanceof String s)) {
                throw bad(name + "." + e.getKey(), e.getValue(), "a string");
            }
            out.put(String.valueOf(e.getKey()), s);
        }
        return out;
    }

    /** A nested object's arguments, or null when absent. */
    public Args object(String name) {
        Object v = values.get(name);
        if (v == null) {
            return null;
        }
        if (!(v instanceof Map<?, ?> map)) {
            throw bad(name, v, "an object");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) map;
        return new Args(m);
    }

    public Object raw(String name) {
        return values.get(name);
    }

    private static SessionException bad(String name, Object got, String expected) {
        String shown = String.valueOf(got);
        if (shown.length() > 60) {
            shown = shown.substring(0, 60) + "…";
        }
        return new SessionException("'" + name + "' must be " + expected + "; got " + shown);
    }
}
