package iristerm.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** The agent-style suite's results, one row per task, as a markdown table. */
final class AgentTaskTable {
    /** One task's outcome: each call it made, in order; {@code failure} is null when its steps all succeeded. */
    record Row(int number, String task, List<String> trace, int fewest, long millis, int deadWaits,
               long deadWaitMillis, String failure) {
        int calls() {
            return trace.size();
        }

        /** done only in the fewest calls with no dead wait, as issue #24's "done when" has it */
        boolean done() {
            return failure == null && deadWaits == 0 && calls() <= fewest;
        }

        String verdict() {
            if (failure != null) {
                return "not done: " + failure;
            }
            List<String> but = new ArrayList<>();
            if (calls() > fewest) {
                but.add((calls() - fewest) + " call(s) more than needed");
            }
            if (deadWaits > 0) {
                but.add("waited out its bound while the program waited for input");
            }
            return but.isEmpty() ? "done" : "done, but " + String.join("; ", but);
        }

        String markdown() {
            String dead = deadWaits == 0 ? "no" : String.format(Locale.ROOT, "yes: %d call(s), %s", deadWaits,
                    seconds(deadWaitMillis));
            return "| " + number + " | " + task + " | " + calls() + " (" + fewest + ") | " + seconds(millis) + " | " + dead
                    + " | " + verdict() + " |";
        }
    }

    private final List<Row> rows = new ArrayList<>();

    synchronized void add(Row row) {
        rows.add(row);
    }

    /** @param about the server measured and the machine's load meanwhile, for the heading */
    synchronized String markdown(String about) {
        List<Row> sorted = rows.stream().sorted(Comparator.comparingInt(Row::number)).toList();
        StringBuilder b = new StringBuilder();
        b.append("Agent-style tasks (AgentTasksIT) against ").append(about).append(": ")
                .append(sorted.stream().filter(Row::done).count()).append(" of ").append(sorted.size())
                .append(" done, ").append(sorted.stream().mapToInt(Row::calls).sum()).append(" calls, ")
                .append(seconds(sorted.stream().mapToLong(Row::millis).sum())).append(" in all.\n\n");
        b.append("| # | task | calls (fewest) | wall time | waited out its bound while the program waited for input | verdict |\n");
        b.append("|---|---|---|---|---|---|\n");
        sorted.forEach(r -> b.append(r.markdown()).append('\n'));
        // what each call answered, so a row's extra call or lost time can be told apart from the machine's load
        b.append("\nThe calls, task by task (tool: reason, state, time):\n\n");
        sorted.forEach(r -> b.append("- ").append(r.number()).append(": ")
                .append(r.trace().isEmpty() ? "no call" : String.join("; ", r.trace())).append('\n'));
        return b.toString();
    }

    void write(Path file, String about) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, markdown(about), StandardCharsets.UTF_8);
    }

    private static String seconds(long millis) {
        return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
    }
}
