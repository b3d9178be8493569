package iristerm.doctor;

import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;

/** The doctor's whole table: passes only if every check passed. */
public record Report(List<Finding> findings) {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    public Report {
        findings = List.copyOf(findings);
    }

    public boolean ok() {
        return !findings.isEmpty() && findings.stream().allMatch(Finding::ok);
    }

    /** One line per check, then a summary line. */
    public String text() {
        StringBuilder sb = new StringBuilder();
        for (Finding f : findings) {
            sb.append(f.line()).append('\n');
        }
        long failed = findings.stream().filter(f -> !f.ok()).count();
        sb.append(failed == 0 ? "all " + findings.size() + " checks passed"
                : failed + " of " + findings.size() + " checks failed").append('\n');
        return sb.toString();
    }

    /** {@code {"ok":bool,"checks":[{"check","ok","seen","fix"}]}}, for Terminal.Gateway.Doctor(). */
    public String json() {
        ObjectNode root = JSON.createObjectNode();
        root.put("ok", ok());
        ArrayNode checks = root.putArray("checks");
        for (Finding f : findings) {
            checks.addObject().put("check", f.check()).put("ok", f.ok()).put("seen", f.seen()).put("fix", f.fix());
        }
        return JSON.writeValueAsString(root);
    }
}
