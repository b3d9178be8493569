package iristerm.modern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;


import org.junit.jupiter.api.Test;

import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.ErrorCodes;
import iristerm.jsonrpc.InboundMessage;

class EraTest {
    private static final String META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
            + "\"io.modelcontextprotocol/clientCapabilities\":{}}";

    private static McpSchema.JSONRPCMessage read(String json) {
        InboundMessage m = InboundMessage.parse(json.getBytes());
        assertNull(m.refusal());
        return m.message();
    }

    private static Era.Route route(String json, String header) {
        return Era.of(read(json), header);
    }

    @Test
    void aClaimInMetaIsModernAndEverythingElseLegacy() {
        assertTrue(route("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{" + META + "}}", null)
                .modern());
        assertFalse(route("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", null).modern());
        assertFalse(route("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":"
                + "{\"progressToken\":1}}}", "2025-11-25").modern());
        assertFalse(route("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                + "\"2026-07-28\"}}", null).modern(), "initialize without a claim is the 2025 handshake");
        assertFalse(route("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}", "2026-07-28").modern());
        assertTrue(route("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{}}", "2026-07-28")
                .modern());
    }

    @Test
    void aWrongClaimIsRefusedNotServedAsLegacy() {
        Era.Route noCapabilities = route("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":"
                + "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}", null);
        assertTrue(noCapabilities.modern());
        assertEquals(ErrorCodes.INVALID_PARAMS, noCapabilities.refusal().code());
        Era.Route headerOnly = route("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", "2026-07-28");
        assertEquals(ErrorCodes.INVALID_PARAMS, headerOnly.refusal().code());
        Era.Route mismatch = route("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{" + META + "}}",
                "2099-01-01");
        assertEquals(Protocol.HEADER_MISMATCH, mismatch.refusal().code());
        assertEquals(400, mismatch.refusal().httpStatus());
        Era.Route initialize = route("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}",
                "2026-07-28");
        assertEquals(Protocol.HEADER_MISMATCH, initialize.refusal().code());
        assertEquals(404, ModernError.methodNotFound("x").httpStatus());
    }
}
