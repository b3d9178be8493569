package iristerm.cli;

/** A listener's {@code HOST:PORT} as an option gives it ({@code [::1]:0} for IPv6); port 0 picks a free one. */
record ListenAddress(String host, int port) {
    static ListenAddress parse(String option, String value) {
        int colon = value.lastIndexOf(':');
        int port = -1;
        if (colon > 0) {
            try {
                port = Integer.parseInt(value.substring(colon + 1));
            } catch (NumberFormatException e) {
                port = -1;
            }
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException(option + " must be HOST:PORT with a port from 0 to 65535, e.g. "
                    + "127.0.0.1:8765; got " + value);
        }
        return new ListenAddress(value.substring(0, colon).replace("[", "").replace("]", ""), port);
    }
}
