package iristerm.json;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * The one JSON mapper of the server, handed to the SDK explicitly: the SDK's ServiceLoader lookup
 * can fail under the External Java Server's class loader.
 */
public final class Json {
    public static final JsonMapper MAPPER = JsonMapper.builder().addModule(ReadAnswerSerializer.module()).build();
    public static final McpJsonMapper MCP = new ConvertedParamsMapper(new JacksonMcpJsonMapper(MAPPER));

    private Json() {
    }
}
