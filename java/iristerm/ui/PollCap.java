package iristerm.ui;

import iristerm.http.Reply;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * How many long polls each identity may have waiting at once; beyond that a poll is answered 429 at once
 * (with Retry-After), and the page asks again later. One user's open pages cannot hold every request the
 * server (hosted: the Web Gateway, CSP processes, gateway connections) has.
 */
final class PollCap {
    static final String RETRY_AFTER_SECONDS = "5";

    private final int max;
    private final Map<String, AtomicInteger> waiting = new ConcurrentHashMap<>();

    PollCap(int max) {
        this.max = max;
    }

    Reply within(String identity, Supplier<Reply> poll) {
        AtomicInteger count = waiting.computeIfAbsent(identity, k -> new AtomicInteger());
        if (count.incrementAndGet() > max) {
            count.decrementAndGet();
            return UiApi.error(429, "this user already has " + max + " browser-view requests waiting (one per open "
                    + "page and session); close a tab, or wait: the page asks again by itself")
                    .with("Retry-After", RETRY_AFTER_SECONDS);
        }
        try {
            return poll.get();
        } finally {
            count.decrementAndGet();
        }
    }
}
