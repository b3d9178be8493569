package iristerm.session;

/** What a session is doing, as tools report it. */
public enum SessionState {
    /** an engine is still starting (iris job not yet ready) */
    starting,
    /** busy: output may still come, no input is being asked for */
    running,
    /** a program waits for input: a READ (iris) or a prompt (process) */
    waiting_input,
    /** at the command prompt with nothing running (iris) */
    idle,
    exited;
}
