package iristerm.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/** What the benchmark prints: sections of rows, the targets met or missed, and every error seen. */
final class Report {
    record Target(String what, boolean met, String figure) {
    }

    private final PrintStream out;
    private final List<String> sections = new ArrayList<>();
    private final List<Target> targets = new ArrayList<>();
    private final List<String> errors = Collections.synchronizedList(new ArrayList<>());

    Report(PrintStream out) {
        this.out = out;
    }

    void line(String text) {
        out.println(text);
        out.flush();
    }

    void line(String format, Object... args) {
        line(String.format(Locale.ROOT, format, args));
    }

    void section(String id, String title) {
        sections.add(id);
        line("");
        line("== " + id + ". " + title);
    }

    static final String LATENCY_HEADER = String.format(Locale.ROOT, "  %-44s %8s %8s %8s %8s  %s",
            "path", "median", "p90", "p99", "max", "vs floor (median) / target");

    void latencyHeader() {
        line(LATENCY_HEADER + "   [ms]");
    }

    void latency(String path, Stats s, String tail) {
        line("  %-44s %8.3f %8.3f %8.3f %8.3f  %s", path, s.medianMs(), s.p90Ms(), s.p99Ms(), s.maxMs(),
                tail == null ? "" : tail);
    }

    void target(String what, boolean met, String figure) {
        targets.add(new Target(what, met, figure));
    }

    void error(String where, String message) {
        errors.add(where + ": " + message);
        if (errors.size() <= 20) {
            line("  ERROR " + where + ": " + message);
        }
    }

    int errorCount() {
        return errors.size();
    }

    List<String> sections() {
        return List.copyOf(sections);
    }

    List<Target> targets() {
        return List.copyOf(targets);
    }

    void summary() {
        sections.add("targets");
        line("");
        line("== Targets (goals, not assertions)");
        for (Target t : targets) {
            line("  %-7s %-52s %s", t.met() ? "[met]" : "[MISSED]", t.what(), t.figure());
        }
        if (!Servers.NOTES.isEmpty()) {
            line("");
            line("== Notes");
            for (String n : Servers.NOTES) {
                line("  " + n);
            }
        }
        line("");
        synchronized (errors) {
            line("== errors: " + errors.size());
            for (String e : errors.subList(0, Math.min(errors.size(), 20))) {
                line("  " + e);
            }
            if (errors.size() > 20) {
                line("  … and " + (errors.size() - 20) + " more");
            }
        }
    }
}
