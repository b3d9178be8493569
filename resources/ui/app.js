// The browser view: the signed-in identity's sessions, live (server-sent events), and the chosen
// session's output rendered by xterm.js. Read-only apart from Interrupt and Close.
const tbody = document.querySelector('#sessions tbody');
const current = document.getElementById('current');
const interrupt = document.getElementById('interrupt');
const close = document.getElementById('close');
const listStatus = document.getElementById('list-status');
const actionStatus = document.getElementById('action-status');

let sessions = [];
let selected = null;
let output = null;
let term = null;

const COLUMNS = ['session', 'kind', 'name', 'owner', 'state', 'pid', 'namespace', 'created', 'last_activity', 'bytes'];

const list = new EventSource('/ui/api/sessions');
list.onopen = () => { listStatus.textContent = 'live'; };
list.onerror = () => {
  listStatus.textContent = list.readyState === EventSource.CLOSED ? 'disconnected: reload the page' : 'reconnecting…';
};
list.onmessage = (e) => {
  const m = JSON.parse(e.data);
  if (m.error) {
    listStatus.textContent = m.error;
    return;
  }
  sessions = m.sessions;
  render();
};

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
  if (output) {
    output.close();
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
  output = new EventSource(`/ui/api/sessions/${encodeURIComponent(id)}/output`);
  output.onmessage = (e) => {
    const m = JSON.parse(e.data);
    term.write(bytesOf(m.b64));
    if (m.ended) {
      output.close();
      actionStatus.textContent = 'session ended' + (m.exit_code != null ? ` (exit code ${m.exit_code})` : '')
        + (m.signal ? ` (signal ${m.signal})` : '');
    }
  };
  output.onerror = () => {
    if (output.readyState === EventSource.CLOSED) {
      actionStatus.textContent = 'this session cannot be shown';
    }
  };
  render();
}

async function act(action) {
  if (!selected) {
    return;
  }
  actionStatus.textContent = action + '…';
  const r = await fetch(`/ui/api/sessions/${encodeURIComponent(selected)}/${action}`, { method: 'POST' });
  const m = await r.json();
  actionStatus.textContent = m.error ?? m.message;
}

interrupt.addEventListener('click', () => act('interrupt'));
close.addEventListener('click', () => act('close'));
