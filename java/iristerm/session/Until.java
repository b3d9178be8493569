package iristerm.session;

import java.util.regex.Pattern;

/**
 * When a waiting read may stop early. {@code null} as a whole means "any new data"; otherwise the
 * read stops as soon as any listed condition holds.
 */
public record Until(Pattern pattern, Long quietMs, boolean prompt, boolean exit) {
    public boolean isEmpty() {
        return pattern == null && quietMs == null && !prompt && !exit;
    }
}
