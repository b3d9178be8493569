package iristerm.ui;

import iristerm.session.Session;
import iristerm.session.SessionException;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The sessions a person has taken over from the browser view: only those take typing from it. A take-over's
 * start and end are written into the session's output ({@link Session#note}), so its transcript, the view and
 * its agent's next read all say that what came in between was typed by a person, and by which identity.
 */
final class Takeovers {
    private final Set<Session> taken = ConcurrentHashMap.newKeySet();

    /** Starts (or, from a new page, restates) {@code identity}'s take-over of its session {@code s}. */
    void begin(Session s, String identity) {
        if (s.isExited()) {
            throw new SessionException("session " + s.id() + " has exited: there is nothing to type into");
        }
        // the sessions that ended while taken over are let go here: the set holds only live ones for long
        taken.removeIf(Session::isExited);
        taken.add(s);
        s.note("a person signed in as " + identity + " is typing into this session from the browser view");
    }

    /** Ends the take-over, if there was one. */
    void end(Session s, String identity) {
        if (taken.remove(s) && !s.isExited()) {
            s.note("the person signed in as " + identity + " stopped typing from the browser view");
        }
    }

    boolean holds(Session s) {
        return taken.contains(s);
    }
}
