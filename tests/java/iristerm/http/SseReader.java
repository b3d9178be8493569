package iristerm.http;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Reads server-sent events from a response body one at a time, each read bounded in time, or
 * parses a collected body whole ({@link #parse}). Closing it closes the body, which is how a
 * test's client vanishes mid-stream.
 */
public final class SseReader implements AutoCloseable {

    /** One event: its id (null if none), retry (null if none) and data (lines joined with \n). */
    public record Event(String id, String retry, String data) {

        public boolean priming() {
            return id != null && data.isEmpty();
        }
    }

    private final InputStream body;
    private final BufferedReader lines;
    private final ExecutorService reader = Executors.newSingleThreadExecutor(task -> {
        Thread thread = new Thread(task, "sse-reader");
        thread.setDaemon(true);
        return thread;
    });

    SseReader(InputStream body) {
        this.body = body;
        lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
    }

    /** The events of a whole {@code text/event-stream} body, as one that was collected before it was sent. */
    public static List<Event> parse(String body) {
        BufferedReader lines = new BufferedReader(new StringReader(body));
        List<Event> events = new ArrayList<>();
        try {
            for (Event event = read(lines); event != null; event = read(lines)) {
                events.add(event);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringReader does not fail
        }
        return events;
    }

    /**
     * The next event, or null when the stream ended first; fails after {@code wait}. A read that timed
     * out is left running and takes the next event for nobody: the test is failing already then.
     */
    Event next(Duration wait) throws IOException, InterruptedException, TimeoutException {
        Future<Event> event = reader.submit(() -> read(lines));
        try {
            return event.get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new IOException(e.getCause());
        }
    }

    /** Every event until the server ends the stream, within {@code wait}. */
    List<Event> rest(Duration wait) throws IOException, InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + wait.toNanos();
        List<Event> events = new ArrayList<>();
        Event event;
        while ((event = next(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())))) != null) {
            events.add(event);
        }
        return events;
    }

    private static Event read(BufferedReader lines) throws IOException {
        String id = null;
        String retry = null;
        List<String> data = new ArrayList<>();
        boolean any = false;
        String line;
        while ((line = lines.readLine()) != null) {
            if (line.isEmpty()) {
                if (any) {
                    return new Event(id, retry, String.join("\n", data));
                }
                continue;
            }
            if (line.startsWith(":")) {
                continue; // a comment: the keep-alive
            }
            any = true;
            int colon = line.indexOf(':');
            String field = colon < 0 ? line : line.substring(0, colon);
            String value = colon < 0 ? "" : line.substring(colon + 1).replaceFirst("^ ", "");
            switch (field) {
                case "id" -> id = value;
                case "retry" -> retry = value;
                case "data" -> data.add(value);
                default -> { }
            }
        }
        return null;
    }

    @Override
    public void close() throws IOException {
        // the body, not the reader: a read blocked in the reader holds the lock its close() needs
        body.close();
        reader.shutdownNow();
    }
}
