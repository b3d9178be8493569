package iristerm.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The server-wide budget over every MCP session's resumable events. */
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
}
