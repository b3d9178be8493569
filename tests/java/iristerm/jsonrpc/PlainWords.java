package iristerm.jsonrpc;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.regex.Pattern;

/** The check every client-facing error passes: it names no Java class, package or exception. */
public final class PlainWords {
    private static final Pattern JAVA = Pattern.compile(
            "tools\\.jackson|com\\.fasterxml|io\\.modelcontextprotocol|java\\.[a-z]+\\.|[A-Za-z]Exception|\\$[A-Z]|\\tat "
                    + "|[A-Z][a-z]+Node'|asLong\\(");

    private PlainWords() {
    }

    public static void assertPlain(String text) {
        assertFalse(JAVA.matcher(text).find(), () -> "names Java internals: " + text);
    }
}
