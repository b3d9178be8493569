package iristerm.http;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
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
 * Reads server-sent events from a response body one at a time, each read bounded in time.
 * Closing it closes the body, which is how a test's client vanishes mid-stream.
 */
final class SseReader implements AutoCloseable {

    /** One event: its id (null if none), retry (null if none) and data (lines joined with \n). */
    record Event(String id, String retry, String data) {

        boolean priming() {
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

    /** The next event, or null when the stream ended first; fails after {@code wait}. */
    Event next(Duration wait) throws IOException, InterruptedException, TimeoutException {
        Future<Event> event = reader.submit(this::read);
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

    private Event read() throws IOException {
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
