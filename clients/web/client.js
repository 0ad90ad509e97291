// @ts-check
// The browser client: plain JS speaking the websocket protocol of server/net/protocol.ts
// (served at /protocol.ts for reading). It resumes its character after a reload or a
// disconnect with the token kept in localStorage.

/** @typedef {import('../../server/net/protocol.ts').ServerFrame} ServerFrame */
/** @typedef {import('../../server/net/protocol.ts').ClientFrame} ClientFrame */
/** @typedef {import('../../server/net/protocol.ts').StateFrame} StateFrame */
/** @typedef {import('../../server/net/protocol.ts').CharacterChoice} CharacterChoice */

import { personMark, splitThings } from './ui.js';

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
const log = $('log');
const input = /** @type {HTMLInputElement} */ ($('input'));
const sendButton = /** @type {HTMLButtonElement} */ ($('send'));
const TOKEN_KEY = 'lightmud.token';

/** @type {WebSocket | null} */
let ws = null;
let playing = false;
let retry = 0;
let nextId = 1;
/** @type {string[]} */
const history = [];
let historyAt = 0;

/** @param {ClientFrame} frame */
function send(frame) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(frame));
}

/** @param {string} text @param {string} cls */
function print(text, cls) {
  const div = document.createElement('div');
  div.className = cls;
  div.textContent = text;
  const atBottom = log.scrollTop + log.clientHeight >= log.scrollHeight - 20;
  log.append(div);
  while (log.childElementCount > 2000) log.firstElementChild?.remove();
  if (atBottom) log.scrollTop = log.scrollHeight;
}

/** @param {string} text */
function command(text) {
  if (!text.trim()) return;
  print(`> ${text}`, 'echo');
  send({ type: 'command', text, id: nextId++ });
}

/** @param {boolean} on */
function setPlaying(on) {
  playing = on;
  input.disabled = !on;
  sendButton.disabled = !on;
  $('login').hidden = on;
  $('state').hidden = !on;
  if (on) input.focus();
}

/** @param {HTMLElement} box @param {{label: string, command?: string, title?: string, badge?: string}[]} items */
function chips(box, items) {
  box.replaceChildren(
    ...items.map((item) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = item.label;
      if (item.badge) {
        const badge = document.createElement('span');
        badge.className = 'badge';
        badge.textContent = item.badge;
        b.append(badge);
      }
      if (item.title) {
        b.title = item.title;
        b.setAttribute('aria-label', `${item.label}${item.badge ? ` (${item.badge})` : ''}: ${item.title}`);
      }
      if (item.command) b.onclick = () => command(/** @type {string} */ (item.command));
      else b.disabled = true;
      return b;
    }),
  );
  if (!items.length) box.replaceChildren(Object.assign(document.createElement('span'), { className: 'none', textContent: 'nothing' }));
}

/** @param {StateFrame} s */
function showState(s) {
  $('room-name').textContent = s.room.name;
  $('room-desc').textContent = s.room.description;
  chips($('exits'), s.room.exits.map((e) => ({ label: e.label, command: `go ${e.label}`, title: e.name })));
  chips($('people'), s.people.map((p) => ({ label: p.name, command: `examine ${p.name}`, ...personMark(p) })));
  const { room, others } = splitThings(s);
  chips($('objects'), room.map((o) => ({ label: o.name, command: `examine ${o.name}`, })));
  chips($('others'), others.map((o) => ({ label: `${o.name} (${o.holder}${o.rel === 'worn' ? ', worn' : o.rel === 'wielded' ? ', wielded' : ''})`, command: `examine ${o.name}` })));
  const c = s.character;
  chips($('inventory'), [...c.carrying, ...c.wearing.map((o) => ({ ...o, name: `${o.name} (worn)` })), ...c.wielding.map((o) => ({ ...o, name: `${o.name} (wielded)` }))].map((o) => ({ label: o.name, command: `examine ${o.name.replace(/ \((worn|wielded)\)$/, '')}` })));
  chips($('actions'), s.validActions.map((a) => ({ label: a, command: a })));
}

/** @param {CharacterChoice[]} list */
function showCharacters(list) {
  const box = $('characters');
  const filter = document.createElement('input');
  filter.placeholder = `filter ${list.length} free characters`;
  const buttons = document.createElement('div');
  const render = () => {
    const q = filter.value.toLowerCase();
    buttons.replaceChildren(
      ...list.filter((c) => !q || c.name.toLowerCase().includes(q) || c.room.toLowerCase().includes(q)).slice(0, 60).map((c) => {
        const b = document.createElement('button');
        b.type = 'button';
        b.textContent = `${c.name} (${c.room})`;
        b.onclick = () => send({ type: 'choose', character: c.id });
        return b;
      }),
    );
  };
  filter.oninput = render;
  render();
  box.replaceChildren(Object.assign(document.createElement('h3'), { textContent: 'Choose a character' }), filter, buttons);
}

/** @param {ServerFrame} f */
function onFrame(f) {
  switch (f.type) {
    case 'hello': {
      $('title').textContent = f.world.title;
      document.title = `${f.world.title} - lightmud`;
      $('status').textContent = 'connected';
      retry = 0;
      const token = localStorage.getItem(TOKEN_KEY);
      if (token) send({ type: 'resume', token });
      return;
    }
    case 'characters':
      return showCharacters(f.characters);
    case 'welcome':
      localStorage.setItem(TOKEN_KEY, f.token);
      $('status').textContent = `playing ${f.character.name}${f.account ? ` as ${f.account.name}${f.account.role === 'admin' ? ' (admin)' : ''}` : ' as a guest'}`;
      $('characters').replaceChildren();
      return setPlaying(true);
    case 'observation':
      return print(f.text, f.kind);
    case 'state':
      return showState(f);
    case 'error':
      if (f.code === 'bad_token' || f.code === 'character_taken') localStorage.removeItem(TOKEN_KEY);
      return print(f.message, 'error');
    case 'bye':
      print(f.reason === 'quit' ? 'Goodbye.' : f.reason, 'system');
      if (f.reason === 'quit') localStorage.removeItem(TOKEN_KEY);
      return;
    case 'pong':
      return;
  }
}

function connect() {
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
  ws = new WebSocket(url);
  ws.onmessage = (ev) => onFrame(JSON.parse(String(ev.data)));
  ws.onclose = (ev) => {
    const wasPlaying = playing;
    setPlaying(false);
    const delay = Math.min(30_000, 1000 * 2 ** retry++);
    $('status').textContent = `disconnected (${ev.code}${ev.reason ? `: ${ev.reason}` : ''}); reconnecting in ${Math.round(delay / 1000)} s`;
    if (ev.reason === 'quit') return;
    if (wasPlaying || retry < 8) setTimeout(connect, delay);
  };
}

$('guest-form').addEventListener('submit', (e) => {
  e.preventDefault();
  send({ type: 'login', guest: true });
});
$('account-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const name = /** @type {HTMLInputElement} */ ($('name')).value.trim();
  const password = /** @type {HTMLInputElement} */ ($('password')).value;
  const action = /** @type {HTMLButtonElement | null} */ (/** @type {SubmitEvent} */ (e).submitter)?.value;
  send(action === 'register' ? { type: 'register', name, password } : { type: 'login', name, password });
});
$('input-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const text = input.value;
  input.value = '';
  if (text.trim()) history.push(text);
  historyAt = history.length;
  command(text);
});
input.addEventListener('keydown', (e) => {
  if (e.key === 'ArrowUp' && historyAt > 0) input.value = history[--historyAt] ?? '';
  else if (e.key === 'ArrowDown' && historyAt < history.length) input.value = history[++historyAt] ?? '';
  else return;
  e.preventDefault();
});

connect();
