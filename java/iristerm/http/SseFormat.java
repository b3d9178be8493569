package iristerm.http;

import java.time.Duration;

/** The framing of server-sent events, shared by the streaming and the collecting stream. */
public final class SseFormat {

    public static final String CONTENT_TYPE = "text/event-stream; charset=UTF-8";

    private SseFormat() {
    }

    /** One {@code message} event carrying {@code data}, with an {@code id} line unless it is null. */
    public static String event(String id, String data) {
        StringBuilder event = new StringBuilder(data.length() + 64);
        if (id != null) {
            event.append("id: ").append(id).append('\n');
        }
        // A line break inside data would end the field early; each line needs its own prefix.
        event.append("event: message\ndata: ").append(data.replace("\n", "\ndata: ")).append("\n\n");
        return event.toString();
    }

    /** A priming event: an id, the reconnection delay and empty data, which clients record but do not dispatch. */
    public static String priming(String id, Duration retry) {
        return "id: " + id + "\nretry: " + retry.toMillis() + "\ndata: \n\n";
    }
}
