// @ts-check
// The crowd review page (/crowd-admin): log in with an admin account, list tasks, read episodes with
// ratings, reports and check results, per-worker stats; approve, soft-reject or reject each unit
// with feedback and a bonus; download the approved episodes (JSONL with provenance, ParlAI text) and
// what to pay each worker (CSV).

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
let token = sessionStorage.getItem('lightmud.crowd.admin') ?? '';

/** @param {string} path @param {unknown} [body] */
async function api(path, body) {
  const res = await fetch(path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status === 401) {
    token = '';
    sessionStorage.removeItem('lightmud.crowd.admin');
    showLogin();
    throw new Error('log in again');
  }
  const type = res.headers.get('content-type') ?? '';
  const data = type.includes('json') && !type.includes('ndjson') ? await res.json() : await res.text();
  if (!res.ok) throw new Error(typeof data === 'object' && data && 'error' in data ? String(data.error) : String(data));
  return data;
}

/** @param {string} tag @param {Record<string, string>} [attrs] @param {(Node | string)[]} [kids] */
function el(tag, attrs = {}, kids = []) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...kids);
  return e;
}

function showLogin() {
  $('login-form').hidden = false;
  $('tasks-panel').hidden = true;
  $('task-panel').hidden = true;
}

async function loadTasks() {
  const data = /** @type {{tasks: any[]}} */ (await api('/crowd/api/tasks'));
  $('login-form').hidden = true;
  $('tasks-panel').hidden = false;
  $('status').textContent = 'logged in';
  const head = el('tr', {}, ['task', 'status', 'units', 'by state', 'waiting', 'live', ''].map((h) => el('th', { scope: 'col' }, [h])));
  $('tasks').replaceChildren(
    head,
    ...data.tasks.map((t) => {
      const open = el('button', { type: 'button' }, ['Review']);
      open.onclick = () => void loadTask(t.id);
      return el('tr', {}, [el('td', {}, [`${t.id}: ${t.title}`]), el('td', {}, [t.status]), el('td', {}, [String(t.units)]),
        el('td', {}, [Object.entries(t.byStatus).map(([k, v]) => `${k} ${v}`).join(', ')]), el('td', {}, [String(t.waiting)]), el('td', {}, [String(t.live)]), el('td', {}, [open])]);
    }),
  );
}

/** @param {string} id @param {string} format */
async function download(id, format) {
  const text = /** @type {string} */ (await api(`/crowd/api/tasks/${encodeURIComponent(id)}/export?format=${format}`));
  const a = el('a', { href: URL.createObjectURL(new Blob([text], { type: 'text/plain' })), download: `${id}.${format === 'jsonl' ? 'jsonl' : `${format}.txt`}` });
  document.body.append(a);
  a.click();
  a.remove();
  $('status').textContent = `exported ${format}: ${text.split('\n').filter(Boolean).length} lines`;
}

/** @param {string} id */
async function downloadPay(id) {
  const text = /** @type {string} */ (await api(`/crowd/api/tasks/${encodeURIComponent(id)}/pay`));
  const a = el('a', { href: URL.createObjectURL(new Blob([text], { type: 'text/csv' })), download: `${id}-pay.csv` });
  document.body.append(a);
  a.click();
  a.remove();
  $('status').textContent = `what to pay: ${text.split('\r\n').filter(Boolean).length - 1} workers`;
}

/** @param {any} u */
function reviewForm(u) {
  const f = el('form', { class: 'review', 'aria-label': `review unit ${u.id}` });
  const fb = el('input', { 'aria-label': `feedback to the worker of ${u.character}`, placeholder: 'feedback to the worker', value: u.review ?? '' });
  const bonus = el('input', { 'aria-label': `bonus for ${u.character}`, type: 'number', min: '0', step: '0.01', placeholder: 'bonus', value: u.bonus === null ? '' : String(u.bonus), style: 'width: 6em' });
  const buttons = [['approved', 'Approve'], ['soft_rejected', 'Soft-reject'], ['rejected', 'Reject']].map(([status, label]) => {
    const b = el('button', { type: 'button', 'data-status': /** @type {string} */ (status) }, [/** @type {string} */ (label)]);
    b.onclick = async () => {
      try {
        const v = /** @type {HTMLInputElement} */ (bonus).value;
        await api(`/crowd/api/units/${encodeURIComponent(u.id)}/review`, { status, feedback: /** @type {HTMLInputElement} */ (fb).value, ...(v ? { bonus: Number(v) } : {}) });
        $('status').textContent = `${u.id}: ${status}`;
        await loadTask(u.task);
      } catch (err) {
        $('status').textContent = String(/** @type {Error} */ (err).message);
      }
    };
    return b;
  });
  f.append(fb, bonus, ...buttons);
  return f;
}

/** @param {string} id */
async function loadTask(id) {
  const data = /** @type {any} */ (await api(`/crowd/api/tasks/${encodeURIComponent(id)}`));
  $('task-panel').hidden = false;
  $('h-task').textContent = `${data.task.id}: ${data.task.title} (${data.status})`;
  const links = ['jsonl', 'dialogue', 'action', 'emote'].map((fmt) => {
    const b = el('button', { type: 'button' }, [`Export approved: ${fmt}`]);
    b.onclick = () => void download(id, fmt).catch((err) => ($('status').textContent = String(err.message)));
    return b;
  });
  const pay = el('button', { type: 'button' }, ['What to pay (CSV)']);
  pay.onclick = () => void downloadPay(id).catch((err) => ($('status').textContent = String(err.message)));
  $('exports').replaceChildren(...links, pay);
  $('workers').replaceChildren(
    el('tr', {}, ['worker', 'units', 'by state', 'refused lines', 'timeouts', 'rated by partners', 'reports against', 'gold passed / failed', ''].map((h) => el('th', { scope: 'col' }, [h]))),
    ...data.workers.map((/** @type {any} */ w) => {
      const block = el('button', { type: 'button' }, [w.blocked ? 'Unblock' : 'Block from every task']);
      block.onclick = async () => {
        await api(`/crowd/api/workers/${encodeURIComponent(w.worker)}/block`, w.blocked ? { unblock: true } : { reason: 'blocked on the review page' });
        await loadTask(id);
      };
      return el('tr', { 'data-worker': w.worker }, [...[w.worker, String(w.units), Object.entries(w.byStatus).map(([k, v]) => `${k} ${v}`).join(', '), String(w.refused), String(w.timeouts),
        w.ratedByPartners === null ? '-' : `${w.ratedByPartners.toFixed(1)} (${w.ratings})`, String(w.reports),
        w.gold.passed + w.gold.failed + w.gold.void ? `${w.gold.passed} / ${w.gold.failed}${w.gold.failed ? ` (${w.gold.failedScenes.join('; ')})` : ''}` : '-'].map((c) => el('td', {}, [c])), el('td', {}, [block])]);
    }),
  );
  $('episodes').replaceChildren(
    ...data.episodes.map((/** @type {any} */ e) => {
      const names = Object.fromEntries(e.setup.personas.map((/** @type {any} */ p) => [p.id, p.name]));
      const turns = el('ol', {}, e.turns.map((/** @type {any} */ t) => el('li', {}, [
        `${names[t.speaker] ?? t.speaker}: ${t.say}${t.action ? ` [${t.action}]` : ''}${t.emote ? ` (${t.emote})` : ''} `,
        el('small', {}, [t.provenance.kind === 'human' ? `human ${t.provenance.worker}` : t.provenance.kind === 'model' ? `model ${t.provenance.model} ${t.provenance.version}` : `script ${t.provenance.script}`]),
      ])));
      const units = e.units.map((/** @type {any} */ u) => el('div', { class: 'unit' }, [
        el('p', {}, [`${names[u.character] ?? u.character} played by ${u.worker}: ${u.status}; partner ${u.partner}; rated partner ${u.rating ?? '-'}${u.report ? `; report: "${u.report}"` : ''}${u.feedback ? `; feedback: "${u.feedback}"` : ''}${u.gold ? `; GOLD ${u.gold.scene}: ${u.gold.result} (answer ${u.gold.answer}, gave ${u.gold.given ?? 'nothing'})` : ''}`]),
        el('p', {}, [u.checks.length ? `checks: ${u.checks.map((/** @type {any} */ c) => `${c.text ? `"${c.text}": ` : ''}${c.problems.join(' ')}`).join(' | ')}` : 'checks: none refused']),
        reviewForm(u),
      ]));
      return el('article', { class: 'panel', 'data-episode': e.id }, [
        el('h4', {}, [`${e.id} in ${e.setup.setting.name}: ${e.status}${e.endReason ? ` (${e.endReason})` : ''}`]), turns, ...units,
      ]);
    }),
  );
}

$('login-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const name = /** @type {HTMLInputElement} */ ($('name')).value.trim();
  const password = /** @type {HTMLInputElement} */ ($('password')).value;
  const res = await fetch('/crowd/api/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name, password }) });
  const data = await res.json();
  if (!res.ok) {
    $('login-problems').textContent = data.error;
    return;
  }
  token = data.token;
  sessionStorage.setItem('lightmud.crowd.admin', token);
  await loadTasks();
});

if (token) loadTasks().catch(() => showLogin());
else showLogin();
