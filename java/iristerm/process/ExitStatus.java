package iristerm.process;

import iristerm.session.Signal;

/**
 * Exit code and terminating signal of a process. Both the JDK and pty4j report a process killed by
 * signal N as 128+N (as shells do in $?), so the signal is inferred from that range; the raw code
 * is kept too, because a program may also exit with such a number on its own.
 */
record ExitStatus(Integer code, String signal) {
    static ExitStatus of(int status) {
        if (status > 128 && status <= 128 + 64) {
            return new ExitStatus(status, Signal.nameOf(status - 128));
        }
        return new ExitStatus(status, null);
    }
}
