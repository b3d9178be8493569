package iristerm.session;

/** Why a read stopped waiting. Every read answers with exactly one. */
public enum ReadReason {
    data, pattern, quiet, prompt, input, exit, timeout, oversized
}
