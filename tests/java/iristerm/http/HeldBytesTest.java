package iristerm.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

/** The server-wide budget over every MCP session's resumable events and every connection's unsent bytes. */
class HeldBytesTest {

    private static final String KIB = "x".repeat(1024);

    @Test
    void theIdentityHoldingTheMostLosesItsOldestEventsAndTheTotalStaysWithinTheBudget() {
        HeldBytes held = new HeldBytes(64 * 1024);
        EventLog bobs = new EventLog(1000, 1 << 20, held.account("bob"));
        long bobStream = bobs.openStream();
        List<EventLog.Event> bobSent = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            bobSent.add(bobs.append(bobStream, KIB));
        }
        // alice fills many sessions, each within its own bounds, far past the server's budget
        List<EventLog> alices = new ArrayList<>();
        List<EventLog.Event> aliceFirst = new ArrayList<>();
        for (int s = 0; s < 20; s++) {
            EventLog log = new EventLog(1000, 1 << 20, held.account("alice"));
            long stream = log.openStream();
            aliceFirst.add(log.append(stream, KIB));
            for (int i = 0; i < 15; i++) {
                log.append(stream, KIB);
            }
            alices.add(log);
        }
        assertTrue(held.total() <= held.max(), "held " + held.total() + " of " + held.max());
        // bob holds less than alice, so none of his events went; alice's oldest did
        assertEquals(16 * 1024, held.account("bob").bytes());
        assertInstanceOf(EventLog.Position.class, bobs.locate(bobSent.get(0).id()));
        EventLog.Lookup gone = alices.get(0).locate(aliceFirst.get(0).id());
        assertInstanceOf(EventLog.Evicted.class, gone);
        assertTrue(((EventLog.Refused) gone).why().contains("memory budget"), ((EventLog.Refused) gone).why());
        // her newest session still holds its events
        assertInstanceOf(EventLog.Position.class, alices.get(19).locate(aliceFirst.get(19).id()));

        // ended sessions give everything back, and events still sent after that are not held
        alices.forEach(EventLog::release);
        bobs.release();
        bobs.append(bobStream, KIB);
        assertEquals(0, held.total());
    }

    @Test
    void aConnectionWhoseClientStoppedReadingIsDroppedBeforeAnyoneElseGivesWay() {
        AtomicLong now = new AtomicLong();
        HeldBytes held = new HeldBytes(64 * 1024, now::get);
        EventLog bobs = new EventLog(1000, 1 << 20, held.account("bob"));
        long stream = bobs.openStream();
        EventLog.Event bobFirst = bobs.append(stream, KIB);
        AtomicBoolean slowDropped = new AtomicBoolean();
        HeldBytes.Connection slow = held.connection(() -> slowDropped.set(true));
        assertTrue(slow.queued(40 * 1024));
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(HeldBytes.STALL_MILLIS));

        // a reading client's answer takes the total over the budget: the stalled connection goes, nothing else
        AtomicBoolean readingDropped = new AtomicBoolean();
        HeldBytes.Connection reading = held.connection(() -> readingDropped.set(true));
        assertTrue(reading.queued(30 * 1024));
        assertTrue(slowDropped.get() && !readingDropped.get());
        assertFalse(slow.queued(1), "a dropped connection still holds bytes");
        assertInstanceOf(EventLog.Position.class, bobs.locate(bobFirst.id()));
        assertEquals(31 * 1024, held.total());

        // written, its bytes come back; closed, all of them
        reading.written(10 * 1024);
        assertEquals(21 * 1024, held.total());
        reading.close();
        assertEquals(KIB.length(), held.total());
    }

    @Test
    void withNoConnectionStalledEventsGoFirstThenTheConnectionLongestWithoutWriting() {
        AtomicLong now = new AtomicLong();
        HeldBytes held = new HeldBytes(64 * 1024, now::get);
        EventLog bobs = new EventLog(1000, 1 << 20, held.account("bob"));
        bobs.append(bobs.openStream(), KIB);
        AtomicBoolean earlierDropped = new AtomicBoolean();
        HeldBytes.Connection earlier = held.connection(() -> earlierDropped.set(true));
        assertTrue(earlier.queued(20 * 1024));
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(HeldBytes.STALL_MILLIS / 2));
        // a fuller answer, just queued, on a connection that is being written: the idler one goes
        AtomicBoolean fullerDropped = new AtomicBoolean();
        HeldBytes.Connection fuller = held.connection(() -> fullerDropped.set(true));
        assertTrue(fuller.queued(50 * 1024));
        assertTrue(earlierDropped.get() && !fullerDropped.get());
        assertEquals(0, held.account("bob").bytes(), "bob's events were kept, a connection dropped first");
        assertEquals(50 * 1024, held.total());
    }
}
