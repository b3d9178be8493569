package iristerm.session;

import java.util.Locale;

/** The signals tools accept, with their POSIX numbers (the same on Linux and macOS for these). */
public enum Signal {
    HUP(1), INT(2), QUIT(3), KILL(9), TERM(15);

    private final int number;

    Signal(int number) {
        this.number = number;
    }

    public int number() {
        return number;
    }

    public static Signal parse(String name) {
        String n = name.trim().toUpperCase(Locale.ROOT);
        if (n.startsWith("SIG")) {
            n = n.substring(3);
        }
        try {
            return valueOf(n);
        } catch (IllegalArgumentException e) {
            throw new SessionException("unknown signal '" + name + "'; use one of INT, TERM, KILL, HUP, QUIT");
        }
    }

    /** Name of the signal with this number, or the number itself for one outside the list. */
    public static String nameOf(int number) {
        for (Signal s : values()) {
            if (s.number == number) {
                return s.name();
            }
        }
        return switch (number) {
            case 6 -> "ABRT";
            case 11 -> "SEGV";
            case 13 -> "PIPE";
            case 14 -> "ALRM";
            default -> "SIG" + number;
        };
    }
}
