package iristerm.http;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Whether an {@code Accept} header (RFC 9110, section 12.5.1) admits a media type: the list is read
 * as media ranges with their weights, and the most specific range that matches the type decides
 * ({@code type/subtype} over {@code type/}{@code *} over {@code *}{@code /*}); weight 0 means "not acceptable".
 * Malformed ranges are skipped, as if absent.
 */
final class AcceptHeader {

    private static final int NO_MATCH = -1;
    /** RFC 9110's qvalue: 0 to 1 with at most three decimals. */
    private static final Pattern QVALUE = Pattern.compile("0(\\.\\d{0,3})?|1(\\.0{0,3})?");

    private AcceptHeader() {
    }

    /**
     * @param header    the header's value; null (absent) admits nothing, since the MCP
     *                  specification requires clients to list what they accept
     * @param mediaType a concrete {@code type/subtype}, lower case
     */
    static boolean accepts(String header, String mediaType) {
        if (header == null) {
            return false;
        }
        int slash = mediaType.indexOf('/');
        String type = mediaType.substring(0, slash);
        String subtype = mediaType.substring(slash + 1);
        int bestSpecificity = NO_MATCH;
        boolean bestAccepts = false;
        for (String element : header.split(",")) {
            String[] parts = element.split(";");
            String range = parts[0].strip().toLowerCase(Locale.ROOT);
            int rangeSlash = range.indexOf('/');
            if (rangeSlash <= 0 || rangeSlash == range.length() - 1) {
                continue;
            }
            int specificity = specificity(range.substring(0, rangeSlash), range.substring(rangeSlash + 1), type,
                    subtype);
            Double weight = weight(parts);
            if (specificity > bestSpecificity && weight != null) {
                bestSpecificity = specificity;
                bestAccepts = weight > 0;
            }
        }
        return bestAccepts;
    }

    /** 2 for an exact match, 1 for a match of the type alone, 0 for the any-type range, {@link #NO_MATCH} otherwise. */
    private static int specificity(String rangeType, String rangeSubtype, String type, String subtype) {
        if (rangeType.equals("*")) {
            return rangeSubtype.equals("*") ? 0 : NO_MATCH;
        }
        if (!rangeType.equals(type)) {
            return NO_MATCH;
        }
        if (rangeSubtype.equals("*")) {
            return 1;
        }
        return rangeSubtype.equals(subtype) ? 2 : NO_MATCH;
    }

    /** The range's {@code q} (1 when absent), or null when it is not a valid weight. */
    private static Double weight(String[] parts) {
        for (int i = 1; i < parts.length; i++) {
            String parameter = parts[i].strip();
            if (parameter.length() > 1 && (parameter.charAt(0) == 'q' || parameter.charAt(0) == 'Q')
                    && parameter.charAt(1) == '=') {
                String value = parameter.substring(2).strip();
                return QVALUE.matcher(value).matches() ? Double.valueOf(value) : null;
            }
        }
        return 1.0;
    }
}
