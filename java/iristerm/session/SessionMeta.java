package iristerm.session;

import java.util.List;

/** What a session was opened with; fixed for its life and kept on disk with it. */
public record SessionMeta(
        String id,
        String kind,
        String name,
        String owner,
        String command,
        List<String> args,
        String cwd,
        String namespace,
        String mode,
        String prompt,
        long created) {
}
