/**
 * What to pay: the reward amount read from a task, per-worker sums from review decisions (in cents),
 * RFC 4180 quoting, and the CSV served to admins over a real socket and written by `lightmud crowd pay`
 * from the same SQLite file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { crowdCommand } from '../../server/cli/commands/crowd.js';
import { csvField, csvLine, PAY_COLUMNS, payCsv, PayError, payReport, rewardFromText } from '../../server/crowd/pay.js';
import type { UnitRow } from '../../server/crowd/store.js';
import { makeAdmin } from '../server/helpers.js';
import { CrowdClient, startCrowdServer, taskSpec } from './helpers.js';

/** An RFC 4180 reader written apart from the writer: quoted fields, doubled quotes, CRLF records. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"' && field === '') quoted = true;
    else if (ch === ',') row.push(field), (field = '');
    else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(field), rows.push(row), (row = []), (field = ''), i++;
    } else field += ch;
  }
  if (field !== '' || row.length) row.push(field), rows.push(row);
  return rows;
}

function unit(worker: string, status: UnitRow['status'], bonus: number | null = null, code: string | null = null): UnitRow {
  return {
    id: `u-${Math.random()}`, task: 't', episode: 'e', worker, character: 'kitty', partner: 'script', status, code, rating: null, report: null,
    feedback: null, checks: [], review: null, bonus, createdAt: 0, completedAt: null, reviewedAt: null, gold: null,
  };
}

function capture(): { out: string[]; err: string[]; stdout: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const stdout: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => (stdout.push(String(s)), true));
  return { out, err, stdout };
}

afterEach(() => vi.restoreAllMocks());

describe('pay', () => {
  it('reads the amount with a currency from a reward text, never a bare number', () => {
    expect(rewardFromText('$1.50 for about 8 minutes')).toEqual({ amount: 1.5, currency: 'USD' });
    expect(rewardFromText('about 8 minutes, £2')).toEqual({ amount: 2, currency: 'GBP' });
    expect(rewardFromText('0,80 € per chat')).toEqual({ amount: 0.8, currency: 'EUR' });
    expect(rewardFromText('1.20 USD, then EUR 5')).toEqual({ amount: 1.2, currency: 'USD' });
    expect(rewardFromText('about 8 minutes of fun')).toBeNull();
  });

  it('pays approved and soft-rejected units the reward, rejected and returned ones nothing, bonuses only on paid units, in cents', () => {
    const task = taskSpec('w.json', { reward: '$0.10 a chat' });
    const r = payReport(task, [
      unit('w-a', 'approved', 0.1, 'C1'), unit('w-a', 'approved', 0.2, 'C2'), unit('w-a', 'soft_rejected', null, 'C3'),
      unit('w-b', 'rejected', 5, 'C4'), unit('w-b', 'returned'), unit('w-c', 'completed', null, 'C5'), unit('w-c', 'assigned'),
    ]);
    expect(r).toMatchObject({ rewardCents: 10, currency: 'USD' });
    expect(r.rows).toEqual([
      { worker: 'w-a', units: 3, approved: 2, softRejected: 1, rejected: 0, awaitingReview: 0, inProgress: 0, returned: 0, base: 30, bonuses: 30, total: 60, codes: ['C1', 'C2', 'C3'] },
      { worker: 'w-b', units: 2, approved: 0, softRejected: 0, rejected: 1, awaitingReview: 0, inProgress: 0, returned: 1, base: 0, bonuses: 0, total: 0, codes: ['C4'] },
      { worker: 'w-c', units: 2, approved: 0, softRejected: 0, rejected: 0, awaitingReview: 1, inProgress: 1, returned: 0, base: 0, bonuses: 0, total: 0, codes: ['C5'] },
    ]);
    // 0.1 + 0.2 in floating point is 0.30000000000000004; the CSV says 0.30.
    expect(parseCsv(payCsv(r))[1]!.slice(9, 12)).toEqual(['0.30', '0.30', '0.60']);
    // rewardAmount wins over the text; a given base wins over both; no amount at all is an error that says what to do
    expect(payReport({ ...task, rewardAmount: 2.25 }, [unit('w-a', 'approved')]).rows[0]!.total).toBe(225);
    expect(payReport({ ...task, rewardAmount: 2.25 }, [unit('w-a', 'approved')], 3).rows[0]!.total).toBe(300);
    expect(() => payReport({ ...task, reward: 'about 8 minutes' }, [])).toThrow(PayError);
    expect(() => payReport({ ...task, reward: 'about 8 minutes' }, [])).toThrow(/rewardAmount/);
  });

  it('quotes CSV fields as RFC 4180 says, and defuses spreadsheet formulas', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField(1.5)).toBe('1.5');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField(' padded')).toBe('" padded"');
    expect(csvField('=HYPERLINK("x")')).toBe('"\'=HYPERLINK(""x"")"');
    expect(csvField('-1')).toBe("'-1");
    const tricky = ['a,b', 'say "hi"', 'two\r\nlines', '', 'x'];
    expect(parseCsv(csvLine(tricky) + csvLine(['1', '2', '3', '4', '5']))).toEqual([tricky, ['1', '2', '3', '4', '5']]);
  });

  it('serves the CSV to admins only, over a real socket, and the CLI writes the same from the SQLite file', async () => {
    const server = await startCrowdServer({ modelFallbackSeconds: 0, turns: 4, maxUnitsPerWorker: 3, reward: '$1.00, for about five minutes' });
    const base = `http://127.0.0.1:${server.httpPort}`;
    try {
      await makeAdmin(server, 'boss', 'secret-1');
      await server.accounts.register('pleb', 'secret-2');
      // worker-1 does two units, worker-2 one, worker-3 one, worker-4 one (left unreviewed)
      for (const w of ['worker-1', 'worker-1', 'worker-2', 'worker-3', 'worker-4']) {
        const c = await CrowdClient.join(server, 'garden-chat', w);
        await c.next('paired');
        await c.turn('Good morning to you, neighbour.');
        await c.turn('What a lovely day it is here.');
        await c.next('end');
        c.send({ type: 'form', rating: 4 });
        await c.next('done');
        await c.close();
      }
      const store = server.crowd!.store;
      const units = store.units('garden-chat');
      const of = (w: string) => units.filter((u) => u.worker === store.pseudonym(w));
      const post = async (path: string, token: string, body: unknown) => fetch(base + path, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const login = async (name: string, password: string) => ((await (await post('/crowd/api/login', '', { name, password })).json()) as { token?: string }).token;
      const token = (await login('boss', 'secret-1'))!;
      const review = async (id: string, status: string, bonus?: number) => expect((await post(`/crowd/api/units/${id}/review`, token, { status, bonus })).status).toBe(200);
      await review(of('worker-1')[0]!.id, 'approved', 0.1);
      await review(of('worker-1')[1]!.id, 'approved', 0.2);
      await review(of('worker-2')[0]!.id, 'soft_rejected');
      await review(of('worker-3')[0]!.id, 'rejected', 5);

      // Not logged in, or not an admin: no CSV.
      expect((await fetch(`${base}/crowd/api/tasks/garden-chat/pay`)).status).toBe(401);
      expect(await login('pleb', 'secret-2')).toBeUndefined();
      expect((await fetch(`${base}/crowd/api/tasks/garden-chat/pay`, { headers: { authorization: 'Bearer not-a-token' } })).status).toBe(401);
      const get = (q = '') => fetch(`${base}/crowd/api/tasks/garden-chat/pay${q}`, { headers: { authorization: `Bearer ${token}` } });
      expect((await fetch(`${base}/crowd/api/tasks/nope/pay`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(404);
      expect((await get('?base=lots')).status).toBe(400);

      const res = await get();
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="garden-chat-pay.csv"');
      const csv = await res.text();
      const rows = parseCsv(csv);
      expect(rows[0]).toEqual(PAY_COLUMNS);
      const byWorker = Object.fromEntries(rows.slice(1).map((r) => [r[1]!, Object.fromEntries(PAY_COLUMNS.map((c, i) => [c, r[i]!]))]));
      expect(Object.keys(byWorker)).toHaveLength(4);
      expect(byWorker[store.pseudonym('worker-1')]).toMatchObject({ task: 'garden-chat', units: '2', approved: '2', base_pay: '2.00', bonuses: '0.30', total: '2.30', currency: 'USD' });
      expect(byWorker[store.pseudonym('worker-1')]!.completion_codes!.split(' ').sort()).toEqual(of('worker-1').map((u) => u.code).sort());
      expect(byWorker[store.pseudonym('worker-2')]).toMatchObject({ soft_rejected: '1', base_pay: '1.00', bonuses: '0.00', total: '1.00' });
      expect(byWorker[store.pseudonym('worker-3')]).toMatchObject({ rejected: '1', base_pay: '0.00', bonuses: '0.00', total: '0.00' });
      expect(byWorker[store.pseudonym('worker-4')]).toMatchObject({ awaiting_review: '1', total: '0.00' });
      // the highest total first
      expect(rows[1]![1]).toBe(store.pseudonym('worker-1'));
      expect(parseCsv(await (await get('?base=0.5')).text()).find((r) => r[1] === store.pseudonym('worker-1'))!.slice(9, 12)).toEqual(['1.00', '0.30', '1.30']);

      // The CLI, from the same database file: the same bytes, to a file or to standard output.
      const io = capture();
      const out = join(server.dir, 'pay.csv');
      expect(await crowdCommand.run(['pay', 'garden-chat', '--out', out, '--db', server.db])).toBe(0);
      expect(readFileSync(out, 'utf8')).toBe(csv);
      expect(io.out.at(-1)).toMatch(/4 workers: base 3\.00 \+ bonuses 0\.30 = 3\.30 USD \(1\.00 a paid unit, from the task's reward text\); 1 units await review/);
      expect(await crowdCommand.run(['pay', 'garden-chat', '--db', server.db])).toBe(0);
      expect(io.stdout.join('')).toBe(csv);
      expect(await crowdCommand.run(['pay', 'nope', '--db', server.db])).toBe(1);
      expect(io.err.at(-1)).toMatch(/no task "nope"/);
      await expect(crowdCommand.run(['pay', 'garden-chat', '--base', '-1', '--db', server.db])).rejects.toThrow(/--base/);
    } finally {
      await server.stop();
    }
  });

  it('tells the admin when the reward names no amount (CLI exit 1, HTTP 422)', async () => {
    const server = await startCrowdServer({ reward: 'a warm feeling' });
    try {
      await makeAdmin(server, 'boss', 'secret-1');
      const res = await fetch(`http://127.0.0.1:${server.httpPort}/crowd/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'boss', password: 'secret-1' }) });
      const { token } = (await res.json()) as { token: string };
      const pay = await fetch(`http://127.0.0.1:${server.httpPort}/crowd/api/tasks/garden-chat/pay`, { headers: { authorization: `Bearer ${token}` } });
      expect(pay.status).toBe(422);
      expect(((await pay.json()) as { error: string }).error).toMatch(/names no amount/);
      expect((await fetch(`http://127.0.0.1:${server.httpPort}/crowd/api/tasks/garden-chat/pay?base=0.75`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      const io = capture();
      expect(await crowdCommand.run(['pay', 'garden-chat', '--db', server.db])).toBe(1);
      expect(io.err.at(-1)).toMatch(/names no amount with a currency/);
      expect(await crowdCommand.run(['pay', 'garden-chat', '--base', '0.75', '--db', server.db])).toBe(0);
      expect(io.stdout.join('')).toBe(csvLine(PAY_COLUMNS));
    } finally {
      await server.stop();
    }
  });
});
