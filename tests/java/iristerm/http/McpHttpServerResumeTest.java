package iristerm.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Resumable event streams (MCP 2025-11-25, SEP-1699) over raw HTTP: priming events with a retry
 * interval, a GET with Last-Event-ID that continues the stream it names, and the ids it refuses.
 */
@Timeout(120)
class McpHttpServerResumeTest extends WithTestServer {

    private static final Duration WAIT = TestServer.WAIT;

    @Test
    void aPostStreamStartsWithAPrimingEventThatCarriesRetry() throws Exception {
        String session = test.initializeSession();
        try (SseReader events = post(session, call(5, "echo", "hi"))) {
            List<SseReader.Event> all = events.rest(WAIT);
            SseReader.Event priming = all.get(0);
            assertTrue(priming.priming(), "first event is not a priming event: " + all);
            assertEquals(String.valueOf(StreamableCore.RECONNECT_DELAY.toMillis()), priming.retry());
            SseReader.Event answer = all.get(1);
            assertTrue(answer.data().contains("\"id\":5") && answer.data().contains("hi"), answer.data());
            assertNotNull(answer.id(), "the answer has no event id");
            assertTrue(!answer.id().equals(priming.id()), "priming and answer share an id");
        }
    }

    @Test
    void aClientOfAnOlderProtocolGetsNoPrimingEvent() throws Exception {
        HttpResponse<String> init = test.send(test.request(TestServer.INITIALIZE.replace("2025-11-25", "2025-06-18")));
        String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
        try (SseReader events = post(session, call(5, "echo", "old"))) {
            List<SseReader.Event> all = events.rest(WAIT);
            assertEquals(1, all.size(), "expected the answer alone: " + all);
            assertTrue(all.get(0).data().contains("old"));
            assertNull(all.get(0).retry());
        }
    }

    @Test
    void aGetReconnectReceivesTheMissedNotificationsInOrderOnce() throws Exception {
        String session = test.initializeSession();
        String lastSeen;
        try (SseReader listening = get(session, null)) {
            assertTrue(listening.next(WAIT).priming());
            notifyClients("n1");
            SseReader.Event n1 = listening.next(WAIT);
            assertTrue(n1.data().contains("n1"), n1.data());
            lastSeen = n1.id();
        } // the client vanishes
        notifyClients("n2");
        notifyClients("n3");
        try (SseReader resumed = get(session, lastSeen)) {
            List<String> messages = new ArrayList<>();
            while (messages.size() < 2) {
                SseReader.Event event = resumed.next(WAIT);
                if (!event.priming()) {
                    messages.add(event.data());
                }
            }
            notifyClients("n4");
            messages.add(resumed.next(WAIT).data());
            assertEquals(3, messages.size());
            assertTrue(messages.get(0).contains("\"n2\""), messages.toString());
            assertTrue(messages.get(1).contains("\"n3\""), messages.toString());
            assertTrue(messages.get(2).contains("\"n4\""), messages.toString());
        }
    }

    @Test
    void aGetReconnectContinuesARunningRequestAndEndsWithItsAnswer() throws Exception {
        String session = test.initializeSession();
        String primed;
        try (SseReader answer = post(session, call(3, "block", ""))) {
            SseReader.Event priming = answer.next(WAIT);
            assertTrue(priming.priming(), String.valueOf(priming));
            primed = priming.id();
            assertTrue(test.blockEntered.await(WAIT.toSeconds(), TimeUnit.SECONDS));
        } // the client vanishes while the tool still runs
        try (SseReader resumed = get(session, primed)) {
            assertTrue(resumed.next(WAIT).priming(), "the resumed stream is not primed");
            test.blockRelease.countDown();
            List<SseReader.Event> rest = resumed.rest(WAIT);
            assertEquals(1, rest.size(), "expected the answer, then the end: " + rest);
            assertTrue(rest.get(0).data().contains("\"id\":3") && rest.get(0).data().contains("released"),
                    rest.get(0).data());
        }
    }

    @Test
    void aToolMayFreeItsConnectionAndTheClientPollsForTheAnswer() throws Exception {
        String session = test.initializeSession();
        List<SseReader.Event> posted;
        try (SseReader answer = post(session, call(4, "poll", "p"))) {
            posted = answer.rest(WAIT);
        }
        assertEquals(1, posted.size(), "the POST stream should end after priming: " + posted);
        assertTrue(posted.get(0).priming());
        try (SseReader resumed = get(session, posted.get(0).id())) {
            List<SseReader.Event> answers = resumed.rest(WAIT).stream().filter(e -> !e.priming()).toList();
            assertEquals(1, answers.size(), answers.toString());
            assertTrue(answers.get(0).data().contains("\"id\":4") && answers.get(0).data().contains("polled p"),
                    answers.get(0).data());
        }
    }

    @Test
    void anEventIdOfAnotherSessionMalformedOrNeverIssuedIsRefused() throws Exception {
        String alice = test.initializeSession();
        String other = test.initializeSession();
        String aliceEvent;
        try (SseReader events = post(alice, call(5, "echo", "a"))) {
            aliceEvent = events.rest(WAIT).get(1).id();
        }
        for (String id : List.of(aliceEvent, "garbage")) {
            HttpResponse<String> refused = test.send(getRequest(other, id));
            assertEquals(400, refused.statusCode(), id + ": " + refused.body());
            assertTrue(refused.body().contains("Cannot resume") && refused.body().contains("Last-Event-ID"),
                    refused.body());
        }
        // alice's own log and stream, a position it never reached: not a resume from the stream's end
        String unissued = aliceEvent + "0";
        HttpResponse<String> refused = test.send(getRequest(alice, unissued));
        assertEquals(400, refused.statusCode(), unissued + ": " + refused.body());
        assertTrue(refused.body().contains("Cannot resume") && refused.body().contains("was not issued"),
                refused.body());
    }

    @Test
    void aReconnectWhoseMissedEventsLeftTheBufferIsRefusedNotSkipped() throws Exception {
        String session = test.initializeSession();
        String lastSeen;
        try (SseReader listening = get(session, null)) {
            assertTrue(listening.next(WAIT).priming());
            notifyClients("first");
            lastSeen = listening.next(WAIT).id();
        }
        // one more than the buffer holds: the first event after lastSeen is gone
        for (int i = 0; i <= SessionStreams.BUFFER_EVENTS; i++) {
            notifyClients("m" + i);
        }
        HttpResponse<String> refused = test.send(getRequest(session, lastSeen));
        assertEquals(400, refused.statusCode(), refused.body());
        assertTrue(refused.body().contains("left the buffer"), refused.body());
    }

    private static String call(int id, String tool, String text) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
                + "\",\"arguments\":{\"text\":\"" + text + "\"}}}";
    }

    private void notifyClients(String text) {
        test.server.transport().notifyClients("notifications/message", Map.of("level", "info", "data", text))
                .block(WAIT);
    }

    private SseReader post(String session, String body) throws Exception {
        return open(test.request(body).header("Mcp-Session-Id", session).build());
    }

    private SseReader get(String session, String lastEventId) throws Exception {
        return open(getRequest(session, lastEventId).build());
    }

    private HttpRequest.Builder getRequest(String session, String lastEventId) {
        HttpRequest.Builder get = test.request(null).header("Mcp-Session-Id", session).GET()
                .setHeader("Accept", "text/event-stream");
        return lastEventId == null ? get : get.header("Last-Event-ID", lastEventId);
    }

    private SseReader open(HttpRequest request) throws Exception {
        HttpResponse<InputStream> response = test.http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        if (response.statusCode() != 200) {
            String body = new String(response.body().readAllBytes());
            throw new AssertionError("expected an event stream, got " + response.statusCode() + ": " + body);
        }
        assertTrue(response.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream"));
        return new SseReader(response.body());
    }
}
