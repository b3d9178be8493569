package iristerm.http;

import io.modelcontextprotocol.spec.McpSchema;
import iristerm.jsonrpc.InboundMessage;

/** A POST body read as one JSON-RPC message, or the 400 answer saying why it is not one. */
record PostedMessage(McpSchema.JSONRPCMessage message, Reply refusal) {

    static PostedMessage parse(byte[] body) {
        InboundMessage inbound = InboundMessage.parse(body);
        return inbound.refusal() == null ? new PostedMessage(inbound.message(), null)
                : new PostedMessage(null, Reply.json(400, inbound.refusal().toJson()));
    }
}
