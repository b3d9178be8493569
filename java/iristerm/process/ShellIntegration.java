package iristerm.process;

import iristerm.session.SessionException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Sets up an interactive bash or zsh in a pseudo-terminal to mark each command's end the way terminals'
 * shell integration does (OSC 133): {@code ESC ] 133 ; C BEL} when a command starts, then before every
 * prompt {@code ESC ] 133 ; D ; <status> BEL} and {@code ESC ] 133 ; A BEL}, so that a wait knows the
 * shell's own prompt is back, and the status of the command that ended, without guessing from what the
 * output looks like. {@link ShellMarks} reads them and takes them out of the output.
 *
 * <p>Only bash or zsh started interactive (no script, no {@code -c}; only the options in
 * {@link #BASH_INTERACTIVE} and {@link #ZSH_INTERACTIVE}) gets it: sh and dash have no hook that runs before
 * each prompt. The user's own setup is kept.
 * <ul>
 * <li>bash: PS0 marks a command's start, PROMPT_COMMAND the rest. An inherited PROMPT_COMMAND or PS0 is
 * chained after the marks, and the startup file bash would read ({@code ~/.bashrc}, or the one given with
 * {@code --rcfile}) is read by a startup file of the server's, which then puts the marks back in front of
 * whatever the user's file set. A login shell ({@code -l}) reads its profile files and no rc file of the
 * server's: it keeps the marks unless a profile replaces PROMPT_COMMAND.</li>
 * <li>zsh: ZDOTDIR points at a directory of the server's whose {@code .zshenv}, the first file zsh reads,
 * puts the user's ZDOTDIR back (so that every later startup file is the user's own), reads the user's
 * {@code .zshenv}, and puts the server's hooks first in {@code preexec_functions} and {@code precmd_functions}:
 * hooks the user's files add run after them, and zsh gives each hook the command's status.</li>
 * </ul>
 */
final class ShellIntegration {
    /**
     * Runs first before each prompt: reports the last command's status, marks the prompt, and leaves $? as
     * it was for what runs after it. No single quote: the startup file quotes it in them.
     */
    static final String PROMPT_COMMAND = "__itm_s=$?;builtin printf \"\\e]133;D;%s\\a\\e]133;A\\a\" \"$__itm_s\";"
            + "__itm_r(){ return \"$__itm_s\"; };__itm_r";
    /** Shown by bash after reading a command, before running it. */
    static final String PS0 = "\\e]133;C\\a";
    /** Where the server's startup file finds the user's own (given with --rcfile), when not ~/.bashrc. */
    static final String USER_RC = "__ITM_RC";
    /** Where the server's .zshenv finds the user's own ZDOTDIR, when one was set. */
    static final String USER_ZDOTDIR = "__ITM_ZDOTDIR";
    /** The options bash may be given and still be an interactive shell that shows prompts. */
    private static final Set<String> BASH_INTERACTIVE = Set.of("-i", "-l", "--login", "--norc", "--noprofile",
            "--noediting", "--rcfile", "--init-file");
    /** The same for zsh; -f (no startup files) leaves it as given, since the marks come from a startup file. */
    private static final Set<String> ZSH_INTERACTIVE = Set.of("-i", "-l", "--login");
    private static final String BASHRC = """
            # iris-terminal-mcp: the startup file bash would have read, then the shell-integration marks
            # (OSC 133) in front of whatever it set, so that they run first and see the command's status
            if [ -n "${%1$s+x}" ]; then [ -r "$%1$s" ] && . "$%1$s"; elif [ -r ~/.bashrc ]; then . ~/.bashrc; fi
            unset %1$s
            __itm_pc='%2$s'
            if [[ "$(declare -p PROMPT_COMMAND 2>/dev/null)" == "declare -a"* ]]; then
                PROMPT_COMMAND=("$__itm_pc" "${PROMPT_COMMAND[@]/"$__itm_pc"/:}")
            else
                PROMPT_COMMAND="$__itm_pc${PROMPT_COMMAND:+;${PROMPT_COMMAND//"$__itm_pc"/:}}"
            fi
            [[ $PS0 == *'133;C'* ]] || PS0='%3$s'"$PS0"
            unset __itm_pc
            """.formatted(USER_RC, PROMPT_COMMAND, PS0);
    private static final String ZSHENV = """
            # iris-terminal-mcp: zsh reads this first because ZDOTDIR points here. The user's ZDOTDIR goes back,
            # so that zsh reads the user's own files from here on; then the user's .zshenv; then the
            # shell-integration marks (OSC 133) as the first hooks, so that they see each command's status
            if [[ -n ${%1$s+x} ]]; then ZDOTDIR=$%1$s; else unset ZDOTDIR; fi
            unset %1$s
            [[ -r ${ZDOTDIR:-$HOME}/.zshenv ]] && builtin source "${ZDOTDIR:-$HOME}/.zshenv"
            if [[ -o interactive ]]; then
                __itm_precmd() { builtin printf '\\e]133;D;%%s\\a\\e]133;A\\a' "$?" }
                __itm_preexec() { builtin printf '\\e]133;C\\a' }
                precmd_functions=(__itm_precmd ${precmd_functions:#__itm_precmd})
                preexec_functions=(__itm_preexec ${preexec_functions:#__itm_preexec})
            fi
            """.formatted(USER_ZDOTDIR);

    /** The server's startup files (bashrc, .zshenv), written once per run (again should something have removed them). */
    private static Path startupDir;

    private ShellIntegration() {
    }

    /** What to start: the program's arguments, and whether the shell will mark its prompts. */
    record Setup(List<String> args, boolean marks) {
    }

    /**
     * How to start {@code executable} with {@code args} in a terminal ({@code pty}) or not, changing {@code env}
     * as it needs. Anything but an interactive bash or zsh in a terminal is left as given.
     */
    static Setup apply(String executable, List<String> args, boolean pty, Map<String, String> env) {
        String name = Path.of(executable).getFileName().toString();
        if (pty && name.equals("bash") && interactive(args, BASH_INTERACTIVE)) {
            return bash(args, env);
        }
        if (pty && name.equals("zsh") && interactive(args, ZSH_INTERACTIVE)) {
            String own = env.get("ZDOTDIR");
            if (own != null) {
                env.put(USER_ZDOTDIR, own);
            }
            env.put("ZDOTDIR", startupDir().toString());
            return new Setup(args, true);
        }
        return new Setup(args, false);
    }

    private static Setup bash(List<String> args, Map<String, String> env) {
        env.merge("PROMPT_COMMAND", PROMPT_COMMAND, (own, ours) -> ours + ";" + own);
        env.merge("PS0", PS0, (own, ours) -> ours + own);
        boolean login = args.contains("-l") || args.contains("--login");
        if (login || args.contains("--norc")) {
            // bash reads no rc file here: the marks come from the environment alone
            return new Setup(args, true);
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("--rcfile") || a.equals("--init-file")) {
                env.put(USER_RC, args.get(++i));
            } else {
                out.add(a);
            }
        }
        // bash takes its long options before any single-letter one
        out.add(0, startupDir().resolve("bashrc").toString());
        out.add(0, "--rcfile");
        return new Setup(out, true);
    }

    /**
     * Whether a shell given {@code args} is an interactive one (no script, no -c): each argument one of
     * {@code allowed}, with an argument for each option that takes one.
     */
    private static boolean interactive(List<String> args, Set<String> allowed) {
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (!allowed.contains(a)) {
                return false;
            }
            if ((a.equals("--rcfile") || a.equals("--init-file")) && ++i >= args.size()) {
                return false;
            }
        }
        return true;
    }

    private static synchronized Path startupDir() {
        try {
            if (startupDir == null || !Files.isRegularFile(startupDir.resolve("bashrc"))
                    || !Files.isRegularFile(startupDir.resolve(".zshenv"))) {
                Path dir = Files.createTempDirectory("iris-terminal-shell",
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                // deleted at exit in the reverse order of these calls: the files, then their directory
                dir.toFile().deleteOnExit();
                for (Map.Entry<String, String> f : Map.of("bashrc", BASHRC, ".zshenv", ZSHENV).entrySet()) {
                    Path file = dir.resolve(f.getKey());
                    Files.writeString(file, f.getValue(), StandardCharsets.UTF_8);
                    file.toFile().deleteOnExit();
                }
                startupDir = dir;
            }
            return startupDir;
        } catch (IOException e) {
            throw new SessionException("could not write the shell-integration startup files: " + e.getMessage());
        }
    }
}
