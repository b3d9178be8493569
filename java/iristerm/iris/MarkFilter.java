package iristerm.iris;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Takes the marks ({@code ESC ] 7715 ; <mark> ; <json> BEL}) out of a job's output stream as it
 * arrives in reads of any size: a mark may be split anywhere, even inside its introducer. Output
 * that only looks like a mark (another mark id) stays output. Bytes that may begin a mark are held
 * back until the next read shows whether they do (at most the introducer's length).
 */
final class MarkFilter {
    /** Where the filtered stream goes, in stream order. */
    interface Handler {
        void output(byte[] bytes, int offset, int length);

        void mark(String json);
    }

    /** A mark longer than the limit: the stream is not what the job should send. */
    static final class Overlong extends IOException {
        Overlong(long limit) {
            super("a mark on the link is longer than " + limit + " bytes");
        }
    }

    private final byte[] intro;
    private final int maxMark;
    private final Handler handler;
    /** how many bytes of {@link #intro} the stream has matched so far (held back, not yet output) */
    private int matched;
    /** inside a mark: its JSON so far */
    private ByteArrayOutputStream json;

    MarkFilter(String mark, int maxMark, Handler handler) {
        this.intro = (LinkProtocol.MARK_INTRO + mark + ";").getBytes(StandardCharsets.US_ASCII);
        this.maxMark = maxMark;
        this.handler = handler;
    }

    void feed(byte[] b, int off, int len) throws Overlong {
        int end = off + len;
        // b[runStart, i) is plain output not yet handed on; held introducer bytes are intro[0, matched)
        int runStart = off;
        for (int i = off; i < end; i++) {
            byte c = b[i];
            if (json != null) {
                if (c == LinkProtocol.MARK_END) {
                    String text = json.toString(StandardCharsets.UTF_8);
                    json = null;
                    runStart = i + 1;
                    handler.mark(text);
                } else if (json.size() >= maxMark) {
                    throw new Overlong(maxMark);
                } else {
                    json.write(c);
                }
                continue;
            }
            if (matched > 0) {
                if (c == intro[matched]) {
                    runStart = i + 1;
                    if (++matched == intro.length) {
                        matched = 0;
                        json = new ByteArrayOutputStream();
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
        if (json == null && matched == 0) {
            flush(b, runStart, end);
        }
    }

    private void flush(byte[] b, int from, int to) {
        if (to > from) {
            handler.output(b, from, to - from);
        }
    }
}
