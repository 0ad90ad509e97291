/**
 * HTTP and websocket routes of the crowd room, on the server's fastify app:
 *
 *   GET  /crowd/TASK?worker=ID     the task page (clients/web/crowd.html)
 *   WS   /crowd/ws                 the task page's frames (protocol.ts)
 *   GET  /crowd-admin              the review page (clients/web/admin.html), admins only
 *   POST /crowd/api/login          {name, password} of an account with the admin role -> {token}
 *   GET  /crowd/api/tasks          tasks, units by state, workers waiting, live episodes   (Bearer token)
 *   GET  /crowd/api/tasks/ID       episodes with turns, ratings, reports, check results; per-worker stats
 *   POST /crowd/api/units/ID/review  {status: approved|soft_rejected|rejected, feedback?, bonus?}
 *   GET  /crowd/api/tasks/ID/export?format=jsonl|dialogue|action|emote   the approved episodes
 *   GET  /crowd/api/tasks/ID/pay[?base=AMOUNT]   what to pay each worker, as CSV (pay.ts)
 *   POST /crowd/api/workers/PSEUDONYM/block  {task?, reason?, unblock?}: block a worker from a task or from every task
 *
 * Who is an admin is decided as everywhere in lightmud: an account with the admin role
 * (`lightmud serve --admin NAMES`).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { nanoid } from 'nanoid';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RawData, WebSocket } from 'ws';
import { World } from '../engine/world.js';
import type { AccountStore } from '../store/accounts.js';
import { TokenBucket } from '../net/limits.js';
import { loadWorld } from '../world-io/load-world.js';
import { approvedEpisodes, exportTask } from './export.js';
import { payCsv, PayError, payReport } from './pay.js';
import { parseCrowdFrame, type CrowdServerFrame } from './protocol.js';
import type { CrowdRoom, WorkerLink } from './room.js';
import type { UnitRow } from './store.js';
import { canMove, REVIEWS, type Review } from './units.js';

const ADMIN_TOKEN_MS = 12 * 3600_000;

export interface CrowdRoutesOptions {
  room: CrowdRoom;
  accounts: AccountStore;
  /**
   * The server's connection limits (shared with /ws): the client's address, and why it is refused
   * (null: admitted; counted until the socket closes). Absent: no limits.
   */
  admit?: (socket: WebSocket, req: FastifyRequest) => { ip: string; refusal: string | null };
  rate?: { perSecond: number; burst: number };
  /** Reads a file of clients/web. */
  page(file: string): Promise<Buffer>;
}

/** Per-worker figures for the review page. */
export interface WorkerStats {
  worker: string;
  units: number;
  byStatus: Record<string, number>;
  /** Lines refused by the checks, and turns timed out. */
  refused: number;
  timeouts: number;
  /** Mean rating partners gave this worker (1-5), and how many ratings. */
  ratedByPartners: number | null;
  ratings: number;
  reports: number;
  /** Gold units (gold.ts): checked right, wrong, not checkable, not answered yet; failures count against the worker. */
  gold: { passed: number; failed: number; void: number; pending: number; failedScenes: string[] };
}

export function workerStats(units: UnitRow[]): WorkerStats[] {
  const byWorker = new Map<string, UnitRow[]>();
  for (const u of units) byWorker.set(u.worker, [...(byWorker.get(u.worker) ?? []), u]);
  return [...byWorker].map(([worker, mine]) => {
    const byStatus: Record<string, number> = {};
    for (const u of mine) byStatus[u.status] = (byStatus[u.status] ?? 0) + 1;
    // Ratings of this worker: those their human partners gave in the same episodes.
    const partnerUnits = mine.flatMap((u) => units.filter((o) => o.episode === u.episode && o.worker !== worker));
    const ratings = partnerUnits.map((o) => o.rating).filter((r): r is number => r !== null);
    return {
      worker, units: mine.length, byStatus,
      refused: mine.reduce((a, u) => a + u.checks.filter((c) => c.problems[0] !== 'turn timed out').length, 0),
      timeouts: mine.reduce((a, u) => a + u.checks.filter((c) => c.problems[0] === 'turn timed out').length, 0),
      ratedByPartners: ratings.length ? ratings.reduce((a, b) => a + b, 0) / ratings.length : null,
      ratings: ratings.length,
      reports: partnerUnits.filter((o) => o.report).length,
      gold: {
        passed: mine.filter((u) => u.gold?.result === 'pass').length,
        failed: mine.filter((u) => u.gold?.result === 'fail').length,
        void: mine.filter((u) => u.gold?.result === 'void').length,
        pending: mine.filter((u) => u.gold?.result === 'pending').length,
        failedScenes: mine.filter((u) => u.gold?.result === 'fail').map((u) => `${u.gold!.scene}: gave ${u.gold!.given ?? 'nothing'}, not ${u.gold!.answer}`),
      },
    };
  });
}

export function crowdRoutes(app: FastifyInstance, opts: CrowdRoutesOptions): void {
  const { room, accounts } = opts;
  const store = room.store;
  const tokens = new Map<string, { name: string; until: number }>();

  const html = async (reply: FastifyReply, file: string) => reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(await opts.page(file));
  app.get('/crowd/:task', async (_req, reply) => html(reply, 'crowd.html'));
  app.get('/crowd-admin', async (_req, reply) => html(reply, 'admin.html'));

  // ---- the worker's websocket ----
  app.get('/crowd/ws', { websocket: true }, (socket: WebSocket, req) => {
    const { ip, refusal } = opts.admit?.(socket, req) ?? { ip: req.socket.remoteAddress ?? 'unknown', refusal: null };
    if (refusal) {
      socket.send(JSON.stringify({ type: 'closed', message: refusal } satisfies CrowdServerFrame));
      socket.close(1013, 'too many connections');
      return;
    }
    const bucket = new TokenBucket(opts.rate?.perSecond ?? 8, opts.rate?.burst ?? 20);
    let joined: { task: string; worker: string } | null = null;
    let joining = false;
    const link: WorkerLink = {
      send(frame: CrowdServerFrame) {
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(frame));
      },
    };
    let queue: Promise<void> = Promise.resolve();
    socket.on('message', (data: RawData) => {
      if (!bucket.take()) return link.send({ type: 'error', message: 'Too many messages; that one was dropped.' });
      const f = parseCrowdFrame(String(data));
      if (!f) return link.send({ type: 'error', message: 'That message is not a valid crowd frame.' });
      queue = queue.then(async () => {
        switch (f.type) {
          case 'ping':
            return link.send({ type: 'pong' });
          case 'join': {
            if (joined || joining) return link.send({ type: 'error', message: 'Already joined.' });
            joining = true;
            const worker = await room.join(f.task, f.worker, link);
            if (worker) joined = { task: f.task, worker };
            joining = false;
            if (joined && socket.readyState !== socket.OPEN) room.leave(joined.task, joined.worker, link);
            return;
          }
          case 'turn':
            if (!joined) return link.send({ type: 'error', message: 'Join a task first.' });
            return room.workerTurn(joined.worker, f.say, f.act, link);
          case 'form':
            if (!joined) return link.send({ type: 'error', message: 'Join a task first.' });
            return room.form(joined.worker, f, link);
          case 'onboard':
            if (!joined) return link.send({ type: 'error', message: 'Join a task first.' });
            return room.onboard(joined.task, joined.worker, f.choice, link);
        }
      }).catch((err: unknown) => {
        app.log.error({ err: (err as Error).message }, 'crowd frame failed');
        link.send({ type: 'error', message: 'Something went wrong on the server; try again.' });
      });
    });
    socket.on('close', () => {
      if (joined) room.leave(joined.task, joined.worker, link);
    });
    socket.on('error', () => {});
  });

  // ---- the admin's API ----
  app.post('/crowd/api/login', async (req, reply) => {
    const body = (req.body ?? {}) as { name?: unknown; password?: unknown };
    if (typeof body.name !== 'string' || typeof body.password !== 'string') return reply.code(400).send({ error: 'name and password are needed' });
    const account = await accounts.verify(body.name, body.password);
    if (!account) return reply.code(401).send({ error: 'Wrong account name or password.' });
    if (account.role !== 'admin') return reply.code(403).send({ error: `${account.name} is not an admin (start the server with --admin ${account.name}).` });
    const token = nanoid();
    tokens.set(token, { name: account.name, until: Date.now() + ADMIN_TOKEN_MS });
    return { token, name: account.name };
  });

  const admin = (req: FastifyRequest, reply: FastifyReply): string | null => {
    const m = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
    const t = m ? tokens.get(m[1]!) : undefined;
    if (!t || t.until < Date.now()) {
      void reply.code(401).send({ error: 'Log in as an admin first.' });
      return null;
    }
    return t.name;
  };

  app.get('/crowd/api/tasks', async (req, reply) => {
    if (!admin(req, reply)) return reply;
    const status = room.status();
    return {
      tasks: store.tasks().map((t) => {
        const units = store.units(t.id);
        const byStatus: Record<string, number> = {};
        for (const u of units) byStatus[u.status] = (byStatus[u.status] ?? 0) + 1;
        return { id: t.id, title: t.task.title, status: t.status, units: units.length, byStatus, waiting: status.waiting[t.id] ?? 0, live: status.live.filter((l) => l.task === t.id).length };
      }),
      live: status.live,
    };
  });

  app.get('/crowd/api/tasks/:id', async (req, reply) => {
    if (!admin(req, reply)) return reply;
    const id = (req.params as { id: string }).id;
    const row = store.task(id);
    if (!row) return reply.code(404).send({ error: `no task "${id}"` });
    const units = store.units(id);
    return {
      task: row.task, status: row.status,
      episodes: store.episodes(id).reverse().map((e) => ({ ...e, turns: store.turns(e.id), units: units.filter((u) => u.episode === e.id) })),
      workers: workerStats(units).map((w) => ({ ...w, blocked: store.isBlocked(id, w.worker) })),
    };
  });

  app.post('/crowd/api/units/:id/review', async (req, reply) => {
    const who = admin(req, reply);
    if (!who) return reply;
    const id = (req.params as { id: string }).id;
    const body = (req.body ?? {}) as { status?: unknown; feedback?: unknown; bonus?: unknown };
    const unit = store.unit(id);
    if (!unit) return reply.code(404).send({ error: `no unit "${id}"` });
    if (typeof body.status !== 'string' || !(REVIEWS as readonly string[]).includes(body.status)) return reply.code(400).send({ error: `status must be one of ${REVIEWS.join(', ')}` });
    const status = body.status as Review;
    if (!canMove(unit.status, status)) return reply.code(409).send({ error: `a ${unit.status} unit cannot be ${status}` });
    if (body.feedback !== undefined && (typeof body.feedback !== 'string' || body.feedback.length > 2000)) return reply.code(400).send({ error: 'feedback must be a string of at most 2000 characters' });
    if (body.bonus !== undefined && body.bonus !== null && (typeof body.bonus !== 'number' || !(body.bonus >= 0) || body.bonus > 1000)) return reply.code(400).send({ error: 'bonus must be a number from 0 to 1000' });
    store.setUnitStatus(id, status, { review: (body.feedback as string | undefined)?.trim() || null, bonus: (body.bonus as number | undefined) ?? null });
    app.log.info({ admin: who, unit: id, status }, 'crowd unit reviewed');
    return store.unit(id);
  });

  app.post('/crowd/api/workers/:worker/block', async (req, reply) => {
    const who = admin(req, reply);
    if (!who) return reply;
    const worker = (req.params as { worker: string }).worker;
    if (!/^w-[0-9a-f]{20}$/.test(worker)) return reply.code(400).send({ error: 'a worker pseudonym (w- and 20 hex digits) is needed' });
    const body = (req.body ?? {}) as { task?: unknown; reason?: unknown; unblock?: unknown };
    const task = typeof body.task === 'string' ? body.task : '*';
    if (task !== '*' && !store.task(task)) return reply.code(404).send({ error: `no task "${task}"` });
    if (body.unblock === true) store.unlistWorker('block', task, worker);
    else store.listWorker('block', task, worker, typeof body.reason === 'string' ? body.reason.slice(0, 500) : null);
    app.log.info({ admin: who, worker, task, unblock: body.unblock === true }, 'crowd worker block changed');
    return { worker, task, blocked: store.isBlocked(task === '*' ? '' : task, worker) };
  });

  app.get('/crowd/api/tasks/:id/pay', async (req, reply) => {
    if (!admin(req, reply)) return reply;
    const id = (req.params as { id: string }).id;
    const row = store.task(id);
    if (!row) return reply.code(404).send({ error: `no task "${id}"` });
    const q = (req.query as { base?: string }).base;
    const base = q === undefined || q === '' ? undefined : Number(q);
    if (base !== undefined && !(base >= 0 && base <= 100000)) return reply.code(400).send({ error: 'base must be an amount from 0 to 100000' });
    try {
      const csv = payCsv(payReport(row.task, store.units(id), base));
      return reply.type('text/csv; charset=utf-8').header('cache-control', 'no-store').header('content-disposition', `attachment; filename="${id}-pay.csv"`).send(csv);
    } catch (err) {
      if (err instanceof PayError) return reply.code(422).send({ error: err.message });
      throw err;
    }
  });

  app.get('/crowd/api/tasks/:id/export', async (req, reply) => {
    if (!admin(req, reply)) return reply;
    const id = (req.params as { id: string }).id;
    const format = (req.query as { format?: string }).format ?? 'jsonl';
    const row = store.task(id);
    if (!row) return reply.code(404).send({ error: `no task "${id}"` });
    if (format === 'jsonl') {
      const eps = approvedEpisodes(store, id);
      return reply.type('application/x-ndjson; charset=utf-8').header('content-disposition', `attachment; filename="${id}.jsonl"`).send(eps.map((e) => JSON.stringify(e) + '\n').join(''));
    }
    if (!['dialogue', 'action', 'emote'].includes(format)) return reply.code(400).send({ error: 'format is jsonl, dialogue, action or emote' });
    const dir = mkdtempSync(join(tmpdir(), 'lightmud-crowd-export-'));
    try {
      const world = new World(loadWorld(row.task.world, { seed: 1 }).state);
      exportTask(store, id, world, dir);
      return reply.type('text/plain; charset=utf-8').header('content-disposition', `attachment; filename="${id}.${format}.txt"`).send(readFileSync(join(dir, `crowd.${format}.txt`)));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
