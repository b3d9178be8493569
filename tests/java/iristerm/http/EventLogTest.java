package iristerm.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The bounded per-session event buffer that resumable streams replay from. */
class EventLogTest {

    @Test
    void holdsTheLastEventsByCountAndRefusesAPositionWhoseSuccessorLeft() {
        EventLog log = new EventLog(3, 1 << 20);
        long stream = log.openStream();
        List<EventLog.Event> sent = List.of(log.append(stream, "a"), log.append(stream, "b"),
                log.append(stream, "c"), log.append(stream, "d"));
        // "a" left; after "a" everything is still there
        assertEquals(List.of("b", "c", "d"), data(log.after(stream, sent.get(0).position())));
        assertEquals(List.of("d"), data(log.after(stream, sent.get(2).position())));
        log.append(stream, "e");
        // "b" left now: resuming after "a" would skip it
        assertNull(log.after(stream, sent.get(0).position()));
        assertInstanceOf(EventLog.Evicted.class, log.locate(sent.get(0).id()));
        assertInstanceOf(EventLog.Position.class, log.locate(sent.get(1).id()));
    }

    @Test
    void holdsAtMostItsByteBound() {
        EventLog log = new EventLog(1000, 10);
        long stream = log.openStream();
        EventLog.Event first = log.append(stream, "12345");
        EventLog.Event second = log.append(stream, "67890");
        log.append(stream, "x");
        // 11 bytes: "12345" left, but everything after it is still held
        assertEquals(List.of("67890", "x"), data(log.after(stream, first.position())));
        log.append(stream, "yyyyy");
        // "67890" left too: resuming after "12345" would skip it, after "67890" would not
        assertInstanceOf(EventLog.Evicted.class, log.locate(first.id()));
        assertEquals(List.of("x", "yyyyy"), data(log.after(stream, second.position())));
    }

    @Test
    void anEvictionOnAnotherStreamDoesNotRefuseThisOne() {
        EventLog log = new EventLog(2, 1 << 20);
        long quiet = log.openStream();
        long busy = log.openStream();
        EventLog.Event seen = log.append(quiet, "q");
        log.append(busy, "1");
        log.append(busy, "2");
        log.append(busy, "3");
        assertEquals(List.of(), data(log.after(quiet, seen.position())));
    }

    @Test
    void idsOfAnotherLogOrNeverIssuedAreUnknown() {
        EventLog mine = new EventLog(10, 1000);
        EventLog theirs = new EventLog(10, 1000);
        long stream = mine.openStream();
        theirs.openStream();
        String foreign = theirs.append(stream, "x").id();
        assertInstanceOf(EventLog.Unknown.class, mine.locate(foreign));
        assertInstanceOf(EventLog.Unknown.class, mine.locate("nonsense"));
        String issued = mine.append(stream, "y").id();
        assertInstanceOf(EventLog.Unknown.class, mine.locate(issued.replaceFirst("-\\d+$", "-7")));
        assertInstanceOf(EventLog.Unknown.class, mine.locate(issued.replaceFirst("-\\d+-", "-9-")));
    }

    @Test
    void anEndedStreamIsForgottenOnceNoneOfItsEventsIsHeld() {
        EventLog log = new EventLog(1, 1000);
        long done = log.openStream();
        EventLog.Event last = log.append(done, "end");
        log.end(done);
        assertInstanceOf(EventLog.Position.class, log.locate(last.id()));
        long next = log.openStream();
        log.append(next, "push");
        assertInstanceOf(EventLog.Evicted.class, log.locate(last.id()));
    }

    private static List<String> data(List<EventLog.Event> events) {
        return events.stream().map(EventLog.Event::data).toList();
    }
}
