// A minimal MCP Apps host for AppViewBrowserIT, built on the ext-apps SDK's own host side (AppBridge): it
// renders a tool result's view in a sandboxed iframe (scripts only, an opaque origin) under the CSP the
// spec prescribes for a resource without a csp block, and proxies the view's requests to the test, which
// makes them with the MCP SDK's client on the server under test. Like a real host, it lets the view call
// only tools whose visibility includes "app" (the test's proxy checks it against tools/list).
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

// the spec's CSP for a resource that declares no csp: inline scripts and styles, no connections
const DEFAULT_CSP = "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
  + "img-src 'self' data:; media-src 'self' data:; connect-src 'none'";

async function post(path, body) {
  const r = await fetch(path, { method: 'POST', body: JSON.stringify(body) });
  const text = await r.text();
  if (!r.ok) {
    throw new Error(text);
  }
  return JSON.parse(text);
}

// what the test reads back
window.host = { opened: [], teardown: null };

// Shows the view of a tool call the test made: its name, arguments and result (a CallToolResult)
window.host.show = async (name, args, result) => {
  document.getElementById('call').textContent = `${name} ${JSON.stringify(args)}`;
  const read = await post('resource', { uri: 'ui://iris-terminal/terminal-v1.html' });
  const html = read.contents[0].text.replace('<head>', `<head><meta http-equiv="Content-Security-Policy" content="${DEFAULT_CSP}">`);
  const frame = document.createElement('iframe');
  frame.sandbox = 'allow-scripts';
  frame.style.height = '200px';
  document.getElementById('slot').replaceChildren(frame);
  const bridge = new AppBridge(null, { name: 'iris-terminal-mcp test host', version: '1' },
    { serverTools: {}, openLinks: {}, logging: {} },
    { hostContext: { theme: 'dark', displayMode: 'inline', platform: 'web', containerDimensions: { maxHeight: 900 } } });
  bridge.oncalltool = (params) => post('call', params);
  bridge.onreadresource = (params) => post('resource', params);
  bridge.onopenlink = async ({ url }) => {
    window.host.opened.push(url);
    return {};
  };
  bridge.onsizechange = ({ height }) => {
    if (height) {
      frame.style.height = `${height}px`;
    }
  };
  bridge.oninitialized = async () => {
    await bridge.sendToolInput({ arguments: args });
    await bridge.sendToolResult(result);
  };
  window.host.teardown = () => bridge.teardownResource({});
  window.host.context = (changed) => bridge.sendHostContextChange(changed);
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  frame.srcdoc = html;
};
