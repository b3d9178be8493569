package iristerm.session;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Takes marks ({@code <introducer> <payload> BEL}, such as an IRIS job's {@code ESC ] 7715 ; <id> ; <json> BEL}
 * or a shell's {@code ESC ] 133 ; D ; 0 BEL}) out of an output stream as it arrives in reads of any size:
 * a mark may be split anywhere, even inside its introducer. Output that only looks like a mark (another
 * introducer) stays output. Bytes that may begin a mark are held back until the next read shows whether
 * they do (at most the introducer's length, or a lenient mark's whole length).
 *
 * <p>A {@link #strict} filter reads a link whose other end alone writes marks: any byte up to BEL is
 * payload, and a mark past the limit breaks the stream. A {@link #lenient} filter reads a terminal, where
 * any program may write anything: a payload ends at BEL and holds only printable ASCII, so that a control
 * byte (the ESC of an ST terminator, a newline) or a payload past the limit shows it was no mark of ours,
 * and what was held goes on as output.
 */
public final class MarkFilter {
    private static final byte BEL = 0x07;

    /** Where the filtered stream goes, in stream order. */
    public interface Handler {
        void output(byte[] bytes, int offset, int length);

        void mark(String payload);
    }

    /** A mark longer than the limit on a strict filter's stream: the stream is not what its writer should send. */
    public static final class Overlong extends IOException {
        Overlong(long limit) {
            super("a mark on the link is longer than " + limit + " bytes");
        }
    }

    private final byte[] intro;
    private final int maxMark;
    private final boolean lenient;
    private final Handler handler;
    /** how many bytes of {@link #intro} the stream has matched so far (held back, not yet output) */
    private int matched;
    /** inside a mark: its payload so far */
    private ByteArrayOutputStream payload;

    private MarkFilter(String intro, int maxMark, boolean lenient, Handler handler) {
        this.intro = intro.getBytes(StandardCharsets.US_ASCII);
        if (this.intro.length == 0 || this.intro[0] != 0x1b || intro.indexOf('\u001b', 1) >= 0) {
            // the parser restarts a candidate only at an ESC, so one inside the introducer would be missed
            throw new IllegalArgumentException("a mark's introducer starts with ESC and holds no other");
        }
        this.maxMark = maxMark;
        this.lenient = lenient;
        this.handler = handler;
    }

    /** Marks {@code intro <any bytes> BEL} from a writer that sends nothing else like them. */
    public static MarkFilter strict(String intro, int maxMark, Handler handler) {
        return new MarkFilter(intro, maxMark, false, handler);
    }

    /** Marks {@code intro <printable ASCII> BEL} among whatever programs print; anything else stays output. */
    public static MarkFilter lenient(String intro, int maxMark, Handler handler) {
        return new MarkFilter(intro, maxMark, true, handler);
    }

    public void feed(byte[] b, int off, int len) throws Overlong {
        int end = off + len;
        // b[runStart, i) is plain output not yet handed on; held introducer bytes are intro[0, matched)
        int runStart = off;
        for (int i = off; i < end; i++) {
            byte c = b[i];
            if (payload != null) {
                if (c == BEL) {
                    String text = payload.toString(StandardCharsets.UTF_8);
                    payload = null;
                    runStart = i + 1;
                    handler.mark(text);
                    continue;
                }
                if (payload.size() < maxMark && (!lenient || (c >= 0x20 && c < 0x7f))) {
                    payload.write(c);
                    continue;
                }
                if (!lenient) {
                    throw new Overlong(maxMark);
                }
                // not a mark after all: what was held is output, and this byte is looked at afresh
                handler.output(intro, 0, intro.length);
                handler.output(payload.toByteArray(), 0, payload.size());
                payload = null;
                runStart = i;
            } else if (matched > 0) {
                if (c == intro[matched]) {
                    runStart = i + 1;
                    if (++matched == intro.length) {
                        matched = 0;
                        payload = new ByteArrayOutputStream();
                    }
                    continue;
                }
                // not a mark after all: what was held is output (part of it may have come in an earlier read)
                handler.output(intro, 0, matched);
                matched = 0;
                runStart = i;
            }
            // the introducer has ESC only at its start, so only an ESC can begin a candidate
            if (c == intro[0]) {
                flush(b, runStart, i);
                matched = 1;
                runStart = i + 1;
            }
        }
        if (payload == null && matched == 0) {
            flush(b, runStart, end);
        }
    }

    private void flush(byte[] b, int from, int to) {
        if (to > from) {
            handler.output(b, from, to - from);
        }
    }
}
