// The live terminal as an MCP App view (ui://iris-terminal/terminal-v1.html). It speaks the Apps bridge
// (JSON-RPC over postMessage with the host, spec 2026-01-26) and reaches the server only through the host:
// the session comes from the tool call the view was opened for, the output from the app-only tool
// session_view (long-polled; it moves no agent's cursor), the controls are the session tools themselves.
// It has no credential and connects nowhere (the host allows no connections). Output is rendered by xterm
// only; clipboard-writing sequences are dropped and links open only through the host (ui/open-link).
'use strict';
(() => {
  const PROTOCOL_VERSION = '2026-01-26';
  // a poll waits up to this long for output: well below hosts' tool-call timeouts (about 60 s in several)
  const WAIT_MS = 15000;
  // a request the host has not answered by then is given up (the poll tries again, a button says so)
  const REQUEST_TIMEOUT_MS = WAIT_MS + 30000;
  // at most two polls a second however busy the session: each answer carries up to 64 KiB anyway
  const MIN_POLL_GAP_MS = 500;
  const MAX_FAILURES = 5;
  const FIT_DEBOUNCE_MS = 400;

  const el = (id) => document.getElementById(id);
  const current = el('current');
  const statusLine = el('status');
  const interrupt = el('interrupt');
  const close = el('close');
  const confirmBox = el('confirm');
  const fit = el('fit');
  const type = el('type');
  const line = el('line');
  const lineText = el('line-text');
  const controls = [interrupt, close, fit, type];

  const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const say = (text) => { statusLine.textContent = text; };
  const textOf = (result) => (result.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');

  // ---- the bridge -------------------------------------------------------------------------

  let nextId = 1;
  const pending = new Map();
  const post = (message) => window.parent.postMessage(message, '*');

  function request(method, params) {
    const id = nextId++;
    post({ jsonrpc: '2.0', id, method, params });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`${method}: no answer from the host within ${REQUEST_TIMEOUT_MS / 1000} s`));
      }, REQUEST_TIMEOUT_MS);
      pending.set(id, { resolve, reject, timer });
    });
  }

  const notify = (method, params) => post({ jsonrpc: '2.0', method, params });
  const callTool = (name, args) => request('tools/call', { name, arguments: args });

  window.addEventListener('message', (event) => {
    const m = event.data;
    // only the host (or its sandbox proxy) is the parent; anything else could be a page pretending
    if (event.source !== window.parent || !m || m.jsonrpc !== '2.0') {
      return;
    }
    if (m.method === undefined) {
      const p = pending.get(m.id);
      if (p) {
        pending.delete(m.id);
        clearTimeout(p.timer);
        if (m.error) {
          p.reject(new Error(m.error.message || JSON.stringify(m.error)));
        } else {
          p.resolve(m.result);
        }
      }
    } else if (m.id !== undefined) {
      answer(m);
    } else {
      onNotification(m.method, m.params || {});
    }
  });

  function answer(m) {
    if (m.method === 'ui/resource-teardown') {
      stop();
      post({ jsonrpc: '2.0', id: m.id, result: {} });
    } else if (m.method === 'ping') {
      post({ jsonrpc: '2.0', id: m.id, result: {} });
    } else {
      post({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: `the terminal view does not handle ${m.method}` } });
    }
  }

  let toolInputSession = null;

  function onNotification(method, params) {
    if (method === 'ui/notifications/tool-input') {
      // session_send and session_read name their session only in the arguments
      toolInputSession = params.arguments && params.arguments.session;
    } else if (method === 'ui/notifications/tool-result') {
      const id = (params.structuredContent && params.structuredContent.session) || toolInputSession;
      if (id) {
        watch(id);
      } else if (params.isError) {
        say(textOf(params));
      }
    } else if (method === 'ui/notifications/tool-cancelled') {
      say('the tool call was cancelled');
    } else if (method === 'ui/notifications/host-context-changed') {
      applyContext(params);
    }
  }

  // ---- host context: theme, styles, size ----------------------------------------------------

  const hostContext = {};

  function applyContext(changed) {
    Object.assign(hostContext, changed);
    document.body.classList.toggle('light', hostContext.theme === 'light');
    const variables = (hostContext.styles && hostContext.styles.variables) || {};
    for (const [name, value] of Object.entries(variables)) {
      if (name.startsWith('--') && typeof value === 'string') {
        document.documentElement.style.setProperty(name, value);
      }
    }
  }

  // the host sizes the frame to what the view needs
  new ResizeObserver(() => {
    const r = document.documentElement.getBoundingClientRect();
    notify('ui/notifications/size-changed', { width: Math.ceil(r.width), height: Math.ceil(r.height) });
  }).observe(document.documentElement);

  // ---- the terminal -----------------------------------------------------------------------

  const term = new Terminal({ rendererType: 'dom', cols: 120, rows: 24, scrollback: 5000, disableStdin: true,
    fontFamily: 'DejaVu Sans Mono, Menlo, monospace', fontSize: 13 });
  term.open(el('terminal'));
  // OSC 52 would write the user's clipboard: handled here, so xterm does nothing with it
  term.parser.registerOscHandler(52, () => true);
  const URL_PATTERN = /https?:\/\/[^\s"'<>`]+/g;
  // plain http(s) addresses are links, opened by the host with the user's consent, never by the view
  term.registerLinkProvider({
    provideLinks(y, callback) {
      const row = term.buffer.active.getLine(y - 1);
      const text = row ? row.translateToString(true) : '';
      const links = [...text.matchAll(URL_PATTERN)].map((found) => ({
        text: found[0],
        range: { start: { x: found.index + 1, y }, end: { x: found.index + found[0].length, y } },
        activate: (e, url) => request('ui/open-link', { url }).catch((err) => say(err.message)),
      }));
      callback(links.length ? links : undefined);
    },
  });

  let session = null;
  let next = null;
  let ended = false;
  let stopped = false;
  // a poll loop belongs to one watched session: watching another one retires it
  let generation = 0;
  let running = -1;

  function watch(id) {
    if (id === session || stopped) {
      return;
    }
    session = id;
    next = null;
    ended = false;
    generation++;
    term.reset();
    current.textContent = `session ${id}`;
    say('');
    controls.forEach((b) => { b.disabled = false; });
    poll();
  }

  function poll() {
    if (running === generation || stopped || ended || document.hidden || session === null) {
      return;
    }
    const mine = generation;
    running = mine;
    follow(mine).finally(() => {
      if (running === mine) {
        running = -1;
      }
    });
  }

  async function follow(mine) {
    let failures = 0;
    while (mine === generation && !stopped && !ended && !document.hidden) {
      const started = Date.now();
      const args = { session, wait_ms: WAIT_MS };
      if (next !== null) {
        args.since = next;
      }
      let r;
      try {
        r = await callTool('session_view', args);
      } catch (e) {
        if (++failures >= MAX_FAILURES) {
          say(`stopped following: ${e.message}`);
          return;
        }
        say(`${e.message}; trying again`);
        await pause(3000);
        continue;
      }
      if (mine !== generation || stopped) {
        return;
      }
      if (r.isError) {
        say(textOf(r));
        ended = true;
        controls.forEach((b) => { b.disabled = true; });
        return;
      }
      failures = 0;
      const v = r.structuredContent;
      term.write(Uint8Array.from(atob(v.b64), (c) => c.charCodeAt(0)));
      next = v.next;
      if (v.ended) {
        ended = true;
        controls.forEach((b) => { b.disabled = true; });
        say('session ended' + (v.exit_code != null ? ` (exit code ${v.exit_code})` : '')
          + (v.signal ? ` (signal ${v.signal})` : ''));
      }
      await pause(MIN_POLL_GAP_MS - (Date.now() - started));
    }
  }

  // a hidden view polls no more; shown again, it goes on from where it was
  document.addEventListener('visibilitychange', poll);

  function stop() {
    stopped = true;
    generation++;
    fitObserver.disconnect();
    for (const p of pending.values()) {
      clearTimeout(p.timer);
    }
    pending.clear();
    term.dispose();
  }

  // ---- controls: each one a tool call the user asked for --------------------------------------

  // says how the call went, unless the session ended meanwhile: the end is what the user needs to see
  async function act(label, name, args, shown = textOf) {
    say(label + '…');
    let message;
    try {
      message = shown(await callTool(name, { session, ...args }));
    } catch (e) {
      message = `${label} failed: ${e.message}`;
    }
    if (!ended) {
      say(message);
    }
  }

  interrupt.addEventListener('click', () => act('interrupt', 'session_signal', { signal: 'INT' }));
  // sandboxed frames may not show confirm(): the confirmation is part of the page
  close.addEventListener('click', () => { confirmBox.hidden = false; });
  el('close-no').addEventListener('click', () => { confirmBox.hidden = true; });
  el('close-yes').addEventListener('click', () => {
    confirmBox.hidden = true;
    // session_close answers with the output no reader had read: the terminal shows it already
    act('close', 'session_close', {}, (r) => (r.isError ? textOf(r) : 'closed'));
  });

  type.addEventListener('click', () => {
    line.hidden = !line.hidden;
    type.setAttribute('aria-pressed', String(!line.hidden));
    if (!line.hidden) {
      lineText.focus();
    }
  });
  function sendLine() {
    const text = lineText.value;
    lineText.value = '';
    act('send', 'session_send', { text });
  }
  el('line-send').addEventListener('click', sendLine);
  lineText.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      sendLine();
    }
  });

  // Fit to view: the session's terminal takes the view's width (its height, when the host fixes one),
  // then follows the view's size, one session_resize per pause in resizing
  const measure = document.createElement('span');
  // at the top left: placed after the terminal it would stretch the page's scrollable height by a line
  measure.style.cssText = 'position:absolute;top:0;left:0;visibility:hidden;white-space:pre;'
    + 'font:13px DejaVu Sans Mono, Menlo, monospace';
  measure.textContent = 'W'.repeat(40);
  document.body.append(measure);
  let fitTimer = null;
  const fitObserver = new ResizeObserver(() => {
    if (fit.getAttribute('aria-pressed') === 'true') {
      clearTimeout(fitTimer);
      fitTimer = setTimeout(fitNow, FIT_DEBOUNCE_MS);
    }
  });
  fitObserver.observe(el('terminal'));

  function fitNow() {
    const cell = measure.getBoundingClientRect();
    const cols = Math.max(20, Math.min(1000, Math.floor((el('terminal').clientWidth - 24) / (cell.width / 40))));
    const dims = hostContext.containerDimensions || {};
    const rows = dims.height ? Math.max(5, Math.min(1000, Math.floor((dims.height - 60) / (cell.height * 1.2))))
      : term.rows;
    if (cols !== term.cols || rows !== term.rows) {
      term.resize(cols, rows);
      act('fit', 'session_resize', { cols, rows });
    }
  }

  fit.addEventListener('click', () => {
    const on = fit.getAttribute('aria-pressed') !== 'true';
    fit.setAttribute('aria-pressed', String(on));
    if (on) {
      fitNow();
    }
  });

  // ---- start ------------------------------------------------------------------------------

  request('ui/initialize', {
    appInfo: { name: 'iris-terminal-view', version: '1' },
    appCapabilities: {},
    protocolVersion: PROTOCOL_VERSION,
  }).then((result) => {
    applyContext(result.hostContext || {});
    notify('ui/notifications/initialized', {});
  }, (e) => say(`the host did not answer ui/initialize: ${e.message}`));
})();
