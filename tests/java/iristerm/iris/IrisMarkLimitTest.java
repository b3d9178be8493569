package iristerm.iris;

import iristerm.session.MarkFilter;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The engine's limit on a mark from the job's link. */
class IrisMarkLimitTest {
    private static final String ID = "0123456789abcdef";

    /** The longest thing the job writes is one IRIS string, each character up to 3 bytes of UTF-8 (E8). */
    @Test
    void theEnginesLimitTakesTheLongestIrisStringInThreeByteCharacters() throws Exception {
        String json = "\"" + "€".repeat(3_641_144 - 2) + "\"";
        byte[] stream = (LinkProtocol.MARK_INTRO + ID + ";" + json + "\u0007").getBytes(StandardCharsets.UTF_8);
        List<String> marks = new ArrayList<>();
        MarkFilter f = MarkFilter.strict(LinkProtocol.MARK_INTRO + ID + ";", IrisEngine.MAX_MARK_BYTES,
                new MarkFilter.Handler() {
                    @Override
                    public void output(byte[] bytes, int offset, int length) {
                    }

                    @Override
                    public void mark(String text) {
                        marks.add(text);
                    }
                });
        f.feed(stream, 0, stream.length);
        assertEquals(1, marks.size());
        assertEquals(json.length(), marks.get(0).length());
    }
}
