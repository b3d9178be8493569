// The agent scenario of an MCP client against iris-terminal-mcp: connect, list the tools, open a
// bash session, send a line and read its answer, read the session's transcript resource, close it.
// Prints one JSON line: the era the connection landed on, the connect time, what each step saw.
//
// node agent.mjs <v2|v1> <legacy|auto|pin> <http-url | stdio> [server command and arguments, for stdio]
//   v2: @modelcontextprotocol/client 2.4.0 (speaks 2026-07-28; mode picks its version negotiation)
//   v1: @modelcontextprotocol/sdk 1.32.2 (2025 era only; mode must be legacy)
import * as v2 from '@modelcontextprotocol/client';
import { StdioClientTransport as V2Stdio } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport as V1Stdio } from '@modelcontextprotocol/sdk/client/stdio.js';

const [kind, mode, target, command, ...args] = process.argv.slice(2);
const info = { name: 'iris-terminal-mcp-agent-test', version: '1' };
const negotiation = { legacy: { mode: 'legacy' }, auto: { mode: 'auto' }, pin: { mode: { pin: '2026-07-28' } } }[mode];
if (!negotiation || (kind === 'v1' && mode !== 'legacy')) {
    throw new Error(`unknown client/mode: ${kind} ${mode}`);
}
const client = kind === 'v2' ? new v2.Client(info, { versionNegotiation: negotiation }) : new V1Client(info);
const stdio = { command, args, stderr: 'ignore' };
const transport = target === 'stdio'
    ? (kind === 'v2' ? new V2Stdio(stdio) : new V1Stdio(stdio))
    : (kind === 'v2' ? new v2.StreamableHTTPClientTransport(new URL(target)) : new V1Http(new URL(target)));

const started = performance.now();
await client.connect(transport);
const connectMs = Math.round(performance.now() - started);
const era = typeof client.getProtocolEra === 'function' ? client.getProtocolEra() : 'legacy';

const tools = (await client.listTools()).tools.map(t => t.name);
const opened = await client.callTool({ name: 'session_open', arguments: { command: 'bash', mode: 'pipe' } });
const session = opened.structuredContent.session;
const sent = await client.callTool({ name: 'session_send', arguments: {
    session, text: 'echo agent-$((6*7))', wait_ms: 20000, until: { pattern: 'agent-42' } } });
const transcript = await client.readResource({ uri: `iris-terminal://sessions/${session}/transcript` });
const closed = await client.callTool({ name: 'session_close', arguments: { session } });
await client.close();

console.log(JSON.stringify({
    era,
    connectMs,
    tools: tools.length,
    sent: sent.structuredContent.data,
    reason: sent.structuredContent.reason,
    transcript: transcript.contents[0].text.includes('agent-42'),
    closed: !closed.isError,
}));
