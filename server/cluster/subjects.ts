/**
 * What a shard and its portals say to each other over the bus (issue 15, cluster step 1), and where:
 *
 *   lightmud.world.NAME.game   request/reply: a portal's HostRequest, with the portal's id and a request id
 *                              unique per portal; the answer carries the shard's instance id
 *   lightmud.world.NAME.out    published by the shard: fresh states and log lines of the game, what the
 *                              characters perceived of a portal's command (for the other portals), and
 *                              "started" when a shard begins to serve the world
 *   lightmud.shards.open       request/reply to one shard started with --on-demand (a queue group): open the
 *                              world `{ world }` from its world file (or where it was left) and serve it
 *   lightmud.world.NAME.control  request/reply, served by the shard that writes the world: `{ op: "release",
 *                              holdMs }` saves and closes the world there and lets it go (lightmud shard --move)
 *
 * The bodies are checked here when they arrive (the bus checks only the envelope): a malformed one is an
 * error that says what is wrong, never a crash.
 */
import type { BusBody } from '../bus/bus.js';
import type { CharacterState } from '../net/protocol.js';
import type { Delivery, HostRequest, WorkerMessage } from '../host/types.js';

export const gameSubject = (world: string) => `lightmud.world.${world}.game`;
export const outSubject = (world: string) => `lightmud.world.${world}.out`;
export const controlSubject = (world: string) => `lightmud.world.${world}.control`;
/** Asking the shards started with --on-demand (a queue group: one of them) to open a world from their world file. */
export const OPEN_SUBJECT = 'lightmud.shards.open';
export const OPEN_QUEUE = 'lightmud-shards';

export interface OpenWorldRequest {
  world: string;
}

/** The answer: the world is served now, by this shard (opened now or already), or by another one. */
export type OpenWorldReply = { world: string; shard: string; opened: boolean } | { world: string; elsewhere: true };

export function parseOpenWorldRequest(b: BusBody): OpenWorldRequest {
  if (typeof b.world !== 'string' || !WORLD_ID.test(b.world)) throw new Error('an open request names a world: 1 to 64 letters, digits, _ or -');
  return { world: b.world };
}

/** Asking a world's shard to let the world go (to move it): for how long it stays away from it (ms). */
export interface ReleaseRequest {
  op: 'release';
  holdMs: number;
}

/** The longest a shard stays away from a world it let go (a minute). */
export const MAX_HOLD_MS = 60_000;

export function parseReleaseRequest(b: BusBody): ReleaseRequest {
  if (b.op !== 'release') throw new Error(`a control request's op is "release", not ${JSON.stringify(b.op)}`);
  const holdMs = b.holdMs === undefined ? 5000 : b.holdMs;
  if (typeof holdMs !== 'number' || !Number.isInteger(holdMs) || holdMs < 0 || holdMs > MAX_HOLD_MS) throw new Error(`holdMs is a whole number of ms from 0 to ${MAX_HOLD_MS}`);
  return { op: 'release', holdMs };
}

/** A world's name on the bus: it is part of subjects, so no dots, spaces or wildcards. */
export const WORLD_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** A portal's request to the shard. */
export interface ShardRequest {
  portal: string;
  id: number;
  req: HostRequest;
  /**
   * A resend of this id (its answer did not come): `shard` is the shard instance the portal knew when it
   * sent it first. A shard that is not that one and has no answer for the id may be a successor of one
   * that ran it and died before answering: it refuses rather than risk running it twice.
   */
  resend?: { shard: string | null };
}

/** The shard's answer. */
export type ShardReply =
  | { shard: string; ok: true; result: unknown }
  | { shard: string; ok: false; error: string; fatal?: boolean; /** The game could not answer (the player is told the world is unavailable). */ unavailable?: boolean };

/** What the shard publishes on the world's out subject. */
export type ShardNews =
  | { kind: 'started'; shard: string }
  | { kind: 'states'; shard: string; states: Record<string, CharacterState> }
  | { kind: 'log'; shard: string; level: Extract<WorkerMessage, { type: 'log' }>['level']; msg: string; data?: Record<string, unknown> }
  | { kind: 'perceived'; shard: string; from: string; deliveries: Delivery[]; states: Record<string, CharacterState>; died: string[] };

const OPS = new Set(['open', 'submit', 'agentView', 'state', 'look', 'characters', 'summary', 'watch', 'admin', 'close', 'health', 'crash']);
const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** The request in a body, or an Error saying what is wrong with it. */
export function parseShardRequest(body: BusBody): ShardRequest {
  const { portal, id, req } = body;
  if (typeof portal !== 'string' || !portal || portal.length > 200) throw new Error('a shard request needs "portal", the portal\'s id (a string)');
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) throw new Error('a shard request needs "id", a whole number from 1, unique per portal');
  if (!isObject(req) || typeof req.op !== 'string' || !OPS.has(req.op)) throw new Error(`a shard request needs "req", a host request with a known op (${[...OPS].join(', ')})`);
  if ((req.op === 'submit' || req.op === 'state' || req.op === 'look' || req.op === 'watch' || req.op === 'agentView') && typeof req.actor !== 'string') throw new Error(`a "${req.op}" request needs "actor", a character id`);
  if (req.op === 'submit' && typeof req.text !== 'string') throw new Error('a "submit" request needs "text"');
  if (req.op === 'admin' && (!isObject(req.admin) || typeof req.admin.op !== 'string')) throw new Error('an "admin" request needs "admin", the operation');
  const { resend } = body;
  if (resend !== undefined && (!isObject(resend) || (resend.shard !== null && typeof resend.shard !== 'string'))) throw new Error('"resend" in a shard request is {"shard": the instance first asked, or null}');
  return { portal, id, req: req as unknown as HostRequest, ...(resend ? { resend: { shard: resend.shard as string | null } } : {}) };
}

/** The reply in a body, or an Error saying what is wrong with it. */
export function parseShardReply(body: BusBody): ShardReply {
  if (typeof body.shard !== 'string') throw new Error('a shard reply without "shard", the shard\'s instance id');
  if (body.ok === true) return { shard: body.shard, ok: true, result: body.result };
  if (body.ok === false && typeof body.error === 'string') return { shard: body.shard, ok: false, error: body.error, fatal: body.fatal === true, unavailable: body.unavailable === true };
  throw new Error('a shard reply needs "ok" (true with "result", or false with "error")');
}

/** The news in a body, or null when it is not news this code reads (the caller logs it). */
export function parseShardNews(body: BusBody): ShardNews | null {
  if (typeof body.shard !== 'string') return null;
  switch (body.kind) {
    case 'started': return body as ShardNews;
    case 'states': return isObject(body.states) ? (body as ShardNews) : null;
    case 'log': return typeof body.msg === 'string' && ['info', 'warn', 'error'].includes(body.level as string) ? (body as ShardNews) : null;
    case 'perceived': return typeof body.from === 'string' && Array.isArray(body.deliveries) && isObject(body.states) && Array.isArray(body.died) ? (body as ShardNews) : null;
    default: return null;
  }
}
