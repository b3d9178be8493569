package iristerm.bench;

import com.pty4j.PtyProcessBuilder;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The floor of an interaction: bash as a child of this JVM with no MCP in between. Write the line,
 * read on the calling thread until the token's output line appears.
 */
final class DirectShell implements AutoCloseable {
    private final Process process;
    private final OutputStream in;
    private final InputStream out;
    private final boolean pty;
    private final boolean cat;
    private final byte[] buf = new byte[64 * 1024];
    private final StringBuilder seen = new StringBuilder();

    private DirectShell(Process process, boolean pty, boolean cat) {
        this.process = process;
        this.cat = cat;
        this.in = process.getOutputStream();
        this.out = process.getInputStream();
        this.pty = pty;
    }

    static DirectShell pipe() throws IOException {
        Process p = new ProcessBuilder("bash", "--norc", "--noprofile").redirectErrorStream(true).start();
        return new DirectShell(p, false, false);
    }

    /** {@code cat} on pipes: the line itself comes back. */
    static DirectShell cat() throws IOException {
        Process p = new ProcessBuilder("cat").redirectErrorStream(true).start();
        return new DirectShell(p, false, true);
    }

    /** bash in a pty4j pseudo-terminal, set up as the server sets up its PTY sessions. */
    static DirectShell pty() throws IOException {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put("TERM", "xterm-256color");
        env.put("PS1", "$ ");
        Process p = new PtyProcessBuilder(new String[]{"bash", "--norc", "--noprofile"})
                .setEnvironment(env).setInitialColumns(120).setInitialRows(40).setRedirectErrorStream(true).start();
        return new DirectShell(p, true, false);
    }

    /** Reads until the shell's first prompt; call it with a watchdog armed, as every read here. */
    void awaitPrompt() throws IOException {
        readUntil("$ ");
    }

    /** One interaction: {@code echo tok$((n))} (cat: {@code tok<n>}), then read until the line {@code tok<n>} has arrived. */
    void roundTrip(long n) throws IOException {
        String line = cat ? "tok" + n : "echo tok$((" + n + "))";
        in.write((line + (pty ? "\r" : "\n")).getBytes(StandardCharsets.US_ASCII));
        in.flush();
        readUntil("tok" + n + (pty ? "\r\n" : "\n"));
    }

    private void readUntil(String token) throws IOException {
        int from = 0;
        while (true) {
            int at = seen.indexOf(token, Math.max(0, from - token.length()));
            if (at >= 0) {
                seen.delete(0, at + token.length());
                return;
            }
            from = seen.length();
            int k = out.read(buf);
            if (k < 0) {
                throw new IOException("bash ended before '" + token.trim() + "' appeared");
            }
            seen.append(new String(buf, 0, k, StandardCharsets.ISO_8859_1));
        }
    }

    void kill() {
        process.destroyForcibly();
    }

    @Override
    public void close() {
        try {
            in.close();
        } catch (IOException e) {
            // ending anyway
        }
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
