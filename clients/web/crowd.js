// @ts-check
// The crowd task page: /crowd/TASK?worker=PLATFORM_ID. Speaks the frames of server/crowd/protocol.ts
// over /crowd/ws: waits for a partner, shows the persona and the setting, the conversation, the valid
// actions and the 22 emotes as buttons, the turn timer; sends one line (and at most one action or
// emote) a turn. A line the checks refuse stays in the box with the reason shown.

import { personMark, splitThings } from './ui.js';

/** @typedef {import('../../server/crowd/protocol.ts').CrowdServerFrame} Frame */
/** @typedef {import('../../server/crowd/protocol.ts').CrowdClientFrame} ClientFrame */
/** @typedef {import('../../server/net/protocol.ts').CharacterState} CharacterState */

const EMOTES = ['applaud', 'blush', 'cry', 'dance', 'frown', 'gasp', 'grin', 'groan', 'growl', 'laugh', 'nod', 'nudge', 'ponder', 'pout', 'scream', 'shrug', 'sigh', 'smile', 'stare', 'wave', 'wink', 'yawn'];

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
const say = /** @type {HTMLInputElement} */ ($('say'));
const sendButton = /** @type {HTMLButtonElement} */ ($('send'));
const task = decodeURIComponent(location.pathname.split('/').filter(Boolean)[1] ?? '');
const worker = new URLSearchParams(location.search).get('worker') ?? '';

/** @type {WebSocket | null} */
let ws = null;
let myTurn = false;
let finished = false;
/** @type {string | null} */
let chosen = null;
/** @type {string[]} */
let validActions = [];
let deadline = 0;
let retry = 0;
let episode = '';

/** @param {ClientFrame} f */
function send(f) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(f));
}

/** @param {string} text @param {string} cls @param {boolean} [model] */
function print(text, cls, model) {
  const log = $('log');
  const div = document.createElement('div');
  div.className = cls;
  div.textContent = text;
  if (model) {
    const b = document.createElement('span');
    b.className = 'badge';
    b.textContent = 'model';
    div.append(b);
  }
  log.append(div);
  log.scrollTop = log.scrollHeight;
}

function showChosen() {
  $('chosen').textContent = chosen ? `With this line you will: ${chosen} (click it again to undo)` : '';
  document.querySelectorAll('#actions button, #emotes button').forEach((b) => b.setAttribute('aria-pressed', String(/** @type {HTMLElement} */ (b).dataset.act === chosen)));
}

/** @param {HTMLElement} box @param {string[]} acts */
function actButtons(box, acts) {
  box.replaceChildren(
    ...acts.map((a) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = a;
      b.dataset.act = a;
      b.setAttribute('aria-pressed', 'false');
      b.onclick = () => {
        chosen = chosen === a ? null : a;
        showChosen();
        say.focus();
      };
      return b;
    }),
  );
}

/** @param {HTMLElement} box @param {{label: string, badge?: string, title?: string}[]} items */
function list(box, items) {
  box.replaceChildren(
    ...items.map((i) => {
      const s = document.createElement('span');
      s.className = 'thing';
      s.textContent = i.label;
      if (i.badge) s.append(Object.assign(document.createElement('span'), { className: 'badge', textContent: i.badge }));
      if (i.title) s.title = i.title;
      return s;
    }),
  );
  if (!items.length) box.textContent = 'nothing';
}

/** @param {CharacterState} s */
function showState(s) {
  validActions = s.validActions;
  if (chosen && !EMOTES.includes(chosen) && !validActions.includes(chosen)) chosen = null;
  actButtons($('actions'), validActions);
  showChosen();
  const { room, others } = splitThings(s);
  list($('objects'), room.map((o) => ({ label: o.name })));
  list($('others'), others.map((o) => ({ label: `${o.name} (${o.holder})` })));
  const c = s.character;
  list($('inventory'), [...c.carrying, ...c.wearing.map((o) => ({ ...o, name: `${o.name} (worn)` })), ...c.wielding.map((o) => ({ ...o, name: `${o.name} (wielded)` }))].map((o) => ({ label: o.name })));
  const partner = s.people.find((p) => p.name === $('partner-name').dataset.name);
  if (partner) {
    const mark = personMark(partner);
    $('partner-name').replaceChildren(partner.name, ...(mark.badge ? [Object.assign(document.createElement('span'), { className: 'badge', textContent: mark.badge, title: mark.title })] : []));
  }
}

/** @param {boolean} on */
function setTurn(on) {
  myTurn = on && !finished;
  say.disabled = !myTurn;
  sendButton.disabled = !myTurn;
  if (myTurn) say.focus();
}

function tickTimer() {
  const t = $('timer');
  if (!deadline || finished) {
    t.textContent = '';
    return;
  }
  const left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
  t.textContent = myTurn ? `${left} s left` : `partner: ${left} s`;
}
setInterval(tickTimer, 500);

/** @param {Frame} f */
function onFrame(f) {
  switch (f.type) {
    case 'task':
      $('title').textContent = f.title;
      document.title = `${f.title} - lightmud`;
      $('reward').textContent = `Reward: ${f.reward}`;
      $('instructions').textContent = f.instructions;
      return;
    case 'onboarding': {
      $('onboarding').hidden = false;
      $('onboarding-text').textContent = f.text;
      $('onboarding-question').textContent = f.question;
      $('onboarding-choices').replaceChildren(
        ...f.choices.map((c, i) => {
          const label = document.createElement('label');
          const radio = Object.assign(document.createElement('input'), { type: 'radio', name: 'onboarding', value: String(i) });
          label.append(radio, ` ${c}`);
          return label;
        }),
      );
      $('status').textContent = 'before you start';
      return;
    }
    case 'waiting':
      $('onboarding').hidden = true;
      $('waiting').hidden = false;
      $('waiting-text').textContent = `You are number ${f.position} in the queue.${f.fallbackSeconds !== null ? ` If nobody comes within ${f.fallbackSeconds} seconds, you will be paired with a model character.` : ''}`;
      $('status').textContent = 'waiting for a partner';
      return;
    case 'paired':
      $('waiting').hidden = true;
      $('turn-form').hidden = false;
      // The server follows with the conversation so far.
      $('log').replaceChildren();
      episode = f.episode;
      $('you-name').textContent = f.you.name;
      $('you-persona').textContent = f.you.persona;
      $('setting-name').textContent = `${f.setting.name}${f.setting.category ? ` (${f.setting.category})` : ''}`;
      $('setting-desc').textContent = f.setting.description;
      $('partner-name').dataset.name = f.partner.name;
      $('partner-name').replaceChildren(f.partner.name, ...(f.partner.kind !== 'human' ? [Object.assign(document.createElement('span'), { className: 'badge', textContent: f.partner.kind === 'model' ? 'model' : 'script' })] : []));
      $('status').textContent = `playing ${f.you.name}`;
      $('reward').textContent = `Reward: ${f.reward}`;
      return;
    case 'state':
      return showState(f);
    case 'log':
      return print(f.text, f.who, f.model);
    case 'turn':
      deadline = Date.now() + f.seconds * 1000;
      $('turn-info').textContent = `Turn ${f.turn} of ${f.of}: ${f.yours ? 'your turn' : "your partner's turn"}`;
      $('timer').classList.remove('warn');
      setTurn(f.yours);
      tickTimer();
      return;
    case 'warning':
      $('timer').classList.add('warn');
      print(`Only ${f.seconds} seconds left for your turn.`, 'system');
      return;
    case 'accepted':
      say.value = '';
      chosen = null;
      showChosen();
      $('problems').replaceChildren();
      setTurn(false);
      return;
    case 'refused':
      // The text stays in the box: nothing is lost.
      $('problems').replaceChildren(...f.problems.map((p) => Object.assign(document.createElement('div'), { textContent: p })));
      sendButton.disabled = !myTurn;
      say.focus();
      return;
    case 'partner':
      print(f.message, 'system');
      return;
    case 'end':
      finished = true;
      setTurn(false);
      deadline = 0;
      tickTimer();
      $('turn-info').textContent = '';
      $('turn-form').hidden = true;
      $('end-form').hidden = false;
      print(f.reason, 'system');
      /** @type {HTMLInputElement | null} */ (document.querySelector('#end-form input[name=rating]'))?.focus();
      return;
    case 'done':
      $('end-form').hidden = true;
      $('done').hidden = false;
      $('code').textContent = f.code;
      $('status').textContent = 'done';
      return;
    case 'closed':
      finished = true;
      setTurn(false);
      $('waiting').hidden = true;
      $('onboarding').hidden = true;
      $('turn-form').hidden = true;
      $('closed').hidden = false;
      $('closed').textContent = f.message;
      $('status').textContent = 'closed';
      return;
    case 'error':
      print(f.message, 'error');
      return;
    case 'pong':
      return;
  }
}

function connect() {
  ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/crowd/ws`);
  ws.onopen = () => {
    retry = 0;
    $('status').textContent = 'connected';
    send({ type: 'join', task, worker });
  };
  ws.onmessage = (ev) => onFrame(JSON.parse(String(ev.data)));
  ws.onclose = () => {
    const delay = Math.min(10_000, 1000 * 2 ** retry++);
    $('status').textContent = `disconnected; reconnecting in ${Math.round(delay / 1000)} s`;
    if (!$('closed').hidden || !$('done').hidden) return;
    setTimeout(connect, delay);
  };
}

actButtons($('emotes'), EMOTES);
$('turn-form').addEventListener('submit', (e) => {
  e.preventDefault();
  if (!myTurn) return;
  sendButton.disabled = true;
  send(chosen ? { type: 'turn', say: say.value, act: chosen } : { type: 'turn', say: say.value });
});
$('onboarding').addEventListener('submit', (e) => {
  e.preventDefault();
  const r = /** @type {HTMLInputElement | null} */ (document.querySelector('#onboarding input[name=onboarding]:checked'));
  if (!r) {
    $('onboarding-problems').textContent = 'Please choose an answer.';
    return;
  }
  send({ type: 'onboard', choice: Number(r.value) });
});
$('end-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const r = /** @type {HTMLInputElement | null} */ (document.querySelector('#end-form input[name=rating]:checked'));
  if (!r) {
    $('form-problems').textContent = 'Please rate your partner from 1 to 5.';
    return;
  }
  const report = /** @type {HTMLTextAreaElement} */ ($('report')).value;
  const feedback = /** @type {HTMLTextAreaElement} */ ($('feedback')).value;
  send({ type: 'form', rating: Number(r.value), ...(report.trim() ? { report } : {}), ...(feedback.trim() ? { feedback } : {}) });
});

if (!task || !worker) {
  $('closed').hidden = false;
  $('closed').textContent = 'This link is missing its task or worker id: it should look like /crowd/TASK?worker=YOUR_ID.';
} else connect();
