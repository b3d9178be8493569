// The browser view: the signed-in identity's sessions, live, and the chosen session's output rendered
// by xterm.js. Interrupt, Close (after a confirmation), and, behind the "Type into this session" toggle
// (off by default), a person's typing into the session. Standalone, both follow server-sent events; the
// IRIS-hosted page (body data-follow="poll") cannot be streamed to, so it asks again with bounded
// long-poll requests that the server answers as soon as something changed; it has no typing.
const tbody = document.querySelector('#sessions tbody');
const current = document.getElementById('current');
const interrupt = document.getElementById('interrupt');
const close = document.getElementById('close');
const listStatus = document.getElementById('list-status');
const actionStatus = document.getElementById('action-status');
const typing = document.getElementById('typing');

let sessions = [];
let selected = null;
let output = null;
let term = null;
const polling = document.body.dataset.follow === 'poll';
if (polling) {
  document.getElementById('signout').hidden = true;
  document.getElementById('typing-toggle').hidden = true;
}

const COLUMNS = ['session', 'kind', 'name', 'owner', 'state', 'pid', 'namespace', 'created', 'last_activity', 'bytes'];

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Calls onMessage with each message at url (JSON), until the returned stop() is called or onMessage returns true.
function follow(url, onMessage, onState) {
  if (!polling) {
    const source = new EventSource(url);
    source.onopen = () => onState('live');
    source.onerror = () => onState(source.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting');
    source.onmessage = (e) => {
      if (onMessage(JSON.parse(e.data))) {
        source.close();
      }
    };
    return () => source.close();
  }
  let stopped = false;
  // stop() also abandons a long-poll in flight: left to run, it would hold one of the browser's few connections
  // to the server (and, hosted, a Web Gateway request) for up to 20 s after the user moved on
  const inFlight = new AbortController();
  (async () => {
    let next = '';
    while (!stopped) {
      try {
        const r = await fetch(url + next, { signal: inFlight.signal });
        if (r.status === 429) {
          // this user's other pages hold the waiting requests the server allows; ask again later
          onState('reconnecting');
          await pause(5000);
          continue;
        }
        if (!r.ok) {
          onState('closed');
          return;
        }
        const m = await r.json();
        onState('live');
        if (stopped || onMessage(m)) {
          return;
        }
        next = m.type === 'output' ? `?from=${m.next}` : `?since=${r.headers.get('X-Sessions-Version')}`;
      } catch (e) {
        if (stopped) {
          return;
        }
        onState('reconnecting');
        await pause(3000);
      }
    }
  })();
  return () => {
    stopped = true;
    inFlight.abort();
  };
}

follow('api/sessions', (m) => {
  if (m.error) {
    listStatus.textContent = m.error;
  }
  sessions = m.sessions;
  render();
  if (selected == null) {
    // a page opened to watch: the first live session is on show without a click
    const first = sessions.find((s) => s.state !== 'exited');
    if (first) {
      watch(first.session);
    }
  }
  return false;
}, (state) => {
  listStatus.textContent = { live: 'live', reconnecting: 'reconnecting…', closed: 'disconnected: reload the page' }[state];
});

function cell(name, value) {
  const td = document.createElement('td');
  if (value == null) {
    value = '';
  } else if (name === 'created' || name === 'last_activity') {
    value = new Date(value).toLocaleString();
  }
  td.textContent = value;
  if (name === 'state') {
    td.className = 'state-' + value;
  }
  return td;
}

function render() {
  tbody.replaceChildren(...sessions.map((s) => {
    const tr = document.createElement('tr');
    tr.dataset.session = s.session;
    tr.classList.toggle('selected', s.session === selected);
    tr.append(...COLUMNS.map((c) => cell(c, s[c])));
    tr.addEventListener('click', () => watch(s.session));
    return tr;
  }));
  const s = sessions.find((x) => x.session === selected);
  const live = s != null && s.state !== 'exited';
  interrupt.disabled = !live;
  close.disabled = !live;
  typing.disabled = !live;
  if (!live && typing.checked) {
    typing.checked = false;
    typingOn(false);
  }
}

function bytesOf(b64) {
  const raw = atob(b64);
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) {
    out[i] = raw.charCodeAt(i);
  }
  return out;
}

function watch(id) {
  if (typing.checked) {
    typing.checked = false;
    takeover(selected, false);
  }
  if (output) {
    output();
  }
  if (term) {
    term.dispose();
  }
  selected = id;
  const s = sessions.find((x) => x.session === id);
  current.textContent = s ? `${s.name} (${s.session})` : id;
  actionStatus.textContent = '';
  // the DOM renderer: the text, its colours and the cursor are plain elements of the page
  term = new Terminal({ rendererType: 'dom', cols: 120, rows: 30, scrollback: 5000, disableStdin: true,
    fontFamily: 'DejaVu Sans Mono, Menlo, monospace', fontSize: 13 });
  term.open(document.getElementById('terminal'));
  term.onData((keys) => type(id, keys));
  const shown = term;
  output = follow(`api/sessions/${encodeURIComponent(id)}/output`, (m) => {
    shown.write(bytesOf(m.b64));
    if (m.ended) {
      actionStatus.textContent = 'session ended' + (m.exit_code != null ? ` (exit code ${m.exit_code})` : '')
        + (m.signal ? ` (signal ${m.signal})` : '');
    }
    return m.ended;
  }, (state) => {
    if (state === 'closed' && !actionStatus.textContent.startsWith('session ended')) {
      actionStatus.textContent = 'this session cannot be shown';
    }
  });
  render();
}

// POSTs to a session's route; the answer's words go to the status line. A body is JSON.
async function post(id, action, body, keepalive = false) {
  const init = { method: 'POST', keepalive };
  if (body !== undefined) {
    init.headers = { 'Content-Type': 'application/json' };
    init.body = JSON.stringify(body);
  }
  try {
    const r = await fetch(`api/sessions/${encodeURIComponent(id)}/${action}`, init);
    const m = await r.json();
    return { ok: r.ok, message: m.error ?? m.message };
  } catch (e) {
    return { ok: false, message: `${action} failed: ${e}` };
  }
}

async function act(action) {
  if (!selected) {
    return;
  }
  actionStatus.textContent = action + '…';
  actionStatus.textContent = (await post(selected, action)).message;
}

interrupt.addEventListener('click', () => act('interrupt'));
close.addEventListener('click', () => {
  const s = sessions.find((x) => x.session === selected);
  const label = s ? `${s.name} (${s.session})` : selected;
  if (window.confirm(`Close session ${label}? Its program is ended; its output stays readable.`)) {
    act('close');
  }
});

// ---- a person typing: keys go to the session only while the toggle is on (the server holds the same rule)

async function takeover(id, on, keepalive = false) {
  const answer = await post(id, 'takeover', { on }, keepalive);
  if (id === selected) {
    actionStatus.textContent = answer.message;
  }
  return answer.ok;
}

function typingOn(on) {
  term.setOption('disableStdin', !on);
  document.getElementById('terminal').classList.toggle('typing', on);
  if (on) {
    term.focus();
  }
}

typing.addEventListener('change', async () => {
  const id = selected;
  if (!typing.checked) {
    typingOn(false);
    await takeover(id, false);
    return;
  }
  if (await takeover(id, true) && id === selected && typing.checked) {
    typingOn(true);
  } else {
    typing.checked = false;
  }
});

// keys are sent one request at a time, in order; what is typed meanwhile goes together in the next one
let unsent = '';
let sending = false;
// at most 3 KB of UTF-8 and its JSON escapes a piece: within what the server takes in one request
const PIECE = 500;

async function type(id, keys) {
  if (!typing.checked || id !== selected) {
    return;
  }
  unsent += keys;
  if (sending) {
    return;
  }
  sending = true;
  while (unsent && id === selected && typing.checked) {
    // a piece never ends between the two halves of a surrogate pair
    const cut = /[\uD800-\uDBFF]/.test(unsent.charAt(PIECE - 1)) ? PIECE - 1 : PIECE;
    const piece = unsent.slice(0, cut);
    unsent = unsent.slice(cut);
    const answer = await post(id, 'type', { text: piece });
    if (!answer.ok) {
      actionStatus.textContent = answer.message;
      unsent = '';
    }
  }
  unsent = '';
  sending = false;
}

window.addEventListener('pagehide', () => {
  if (typing.checked) {
    takeover(selected, false, true);
  }
});
