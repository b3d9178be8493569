package iristerm.hosted;

/**
 * One bridge request in a fresh JVM, as the External Java Server makes it but without IRIS behind it
 * (so the call back into IRIS fails): prints the answer. {@link HostedLogIT} runs it to see where the
 * bridge's log goes.
 */
public final class BridgeLogMain {
    private BridgeLogMain() {
    }

    public static void main(String[] args) {
        System.out.println(Bridge.handle("POST", "{}", null));
        // what the kernel says of this JVM once the bridge is loaded (engine review round 8, E8-1)
        System.out.println("dumpable=" + ClosedMemory.dumpable());
    }
}
