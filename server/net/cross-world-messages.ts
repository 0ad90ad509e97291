/**
 * What the worlds on one bus say to each other (cross-world presence and talk), and the readers
 * that check a body from the bus before it is used: a body of the wrong shape is dropped (null), as
 * the bus drops bad JSON and unknown versions. Every text from another world is cleaned here, as a
 * player's input is, and cut to a length.
 *
 * Subjects:
 *   lightmud.presence           published: a world is here (at start, on a new world, every heartbeat) or gone (at close)
 *   lightmud.world.ID.who       request: is a server of that world on the bus (every one of them may answer; the first is taken)
 *   lightmud.world.ID.tell      request: deliver a tell to one of its players (a server that does not name its portal)
 *   lightmud.world.ID.portal.P.who   request: the players on that world's portal P (a world of a cluster has several)
 *   lightmud.world.ID.portal.P.tell  request: deliver a tell to one of portal P's players
 *   lightmud.shout              published: a player shouted; every server tells its players who did not hear it in the world
 */
import type { BusBody } from '../bus/bus.js';
import { cleanText } from './clean-text.js';
import type { WhoLineEntry } from './who-lines.js';

export const PRESENCE_SUBJECT = 'lightmud.presence';
export const whoSubject = (world: string): string => `lightmud.world.${world}.who`;
export const tellSubject = (world: string): string => `lightmud.world.${world}.tell`;
export const portalWhoSubject = (world: string, portal: string): string => `lightmud.world.${world}.portal.${portal}.who`;
export const SHOUT_SUBJECT = 'lightmud.shout';
export const portalTellSubject = (world: string, portal: string): string => `lightmud.world.${world}.portal.${portal}.tell`;

/** The longest tell text carried between worlds. */
export const MAX_TELL_TEXT = 2000;
const MAX_NAME = 80;
const MAX_PLAYERS = 5000;

export interface Presence {
  kind: 'here' | 'gone';
  world: string;
  title: string;
  /** Which of the world's servers: its portal id (null: a server that does not say, asked on the world's own subjects). */
  portal: string | null;
  /** One of several portals of a cluster's world (lightmud serve --remote): other servers of the same world are expected. */
  shared: boolean;
}

export interface WhoAnswer {
  world: string;
  title: string;
  players: WhoLineEntry[];
  portal: string | null;
  shared: boolean;
}

export interface TellRequest {
  from: string;
  fromWorld: string;
  fromTitle: string;
  to: string;
  text: string;
}

export interface TellAnswer {
  delivered: boolean;
  /** The player's character name, as the receiving world has it. */
  name?: string;
  /** Why not delivered. */
  reason?: string;
}

export interface Shout {
  /** The shouter's character name. */
  from: string;
  fromWorld: string;
  fromTitle: string;
  text: string;
  /** Characters of the shouter's world who heard it there (the engine's shout): not told again. */
  heard: string[];
}

/** The most characters a shout lists as having heard it in its world. */
const MAX_HEARD = 5000;

const WORLD_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** A portal id: one subject token. */
export const PORTAL_ID = /^[A-Za-z0-9_-]{1,40}$/;
const portalOf = (x: unknown): string | null => (typeof x === 'string' && PORTAL_ID.test(x) ? x : null);

const str = (x: unknown, max: number): string | null => (typeof x === 'string' && x.length > 0 ? cleanText(x).slice(0, max) : null);

export function readPresence(b: BusBody): Presence | null {
  if ((b.kind !== 'here' && b.kind !== 'gone') || typeof b.world !== 'string' || !WORLD_ID.test(b.world)) return null;
  if (b.portal !== undefined && !portalOf(b.portal)) return null;
  return { kind: b.kind, world: b.world, title: str(b.title, MAX_NAME) ?? b.world, portal: portalOf(b.portal), shared: b.shared === true };
}

function readPlayer(x: unknown): WhoLineEntry | null {
  if (typeof x !== 'object' || x === null) return null;
  const p = x as Record<string, unknown>;
  const name = str(p.name, MAX_NAME);
  if (!name) return null;
  const transport = p.transport === 'websocket' || p.transport === 'telnet' ? p.transport : null;
  return { name, account: str(p.account, MAX_NAME), role: p.role === 'admin' ? 'admin' : 'player', transport, connected: p.connected === true };
}

export function readWhoAnswer(b: BusBody): WhoAnswer | null {
  if (typeof b.world !== 'string' || !WORLD_ID.test(b.world) || !Array.isArray(b.players)) return null;
  const players = b.players.slice(0, MAX_PLAYERS).map(readPlayer);
  if (players.some((p) => p === null)) return null;
  return { world: b.world, title: str(b.title, MAX_NAME) ?? b.world, players: players as WhoLineEntry[], portal: portalOf(b.portal), shared: b.shared === true };
}

export function readTellRequest(b: BusBody): TellRequest | null {
  const from = str(b.from, MAX_NAME);
  const to = str(b.to, MAX_NAME);
  const text = str(b.text, MAX_TELL_TEXT);
  if (!from || !to || !text || typeof b.fromWorld !== 'string' || !WORLD_ID.test(b.fromWorld)) return null;
  return { from, to, text, fromWorld: b.fromWorld, fromTitle: str(b.fromTitle, MAX_NAME) ?? b.fromWorld };
}

export function readTellAnswer(b: BusBody): TellAnswer | null {
  if (typeof b.delivered !== 'boolean') return null;
  const name = str(b.name, MAX_NAME);
  const reason = str(b.reason, 200);
  return { delivered: b.delivered, ...(name ? { name } : {}), ...(reason ? { reason } : {}) };
}

export function readShout(b: BusBody): Shout | null {
  const from = str(b.from, MAX_NAME);
  const text = str(b.text, MAX_TELL_TEXT);
  if (!from || !text || typeof b.fromWorld !== 'string' || !WORLD_ID.test(b.fromWorld) || !Array.isArray(b.heard)) return null;
  const heard = b.heard.slice(0, MAX_HEARD).filter((x): x is string => typeof x === 'string');
  return { from, text, fromWorld: b.fromWorld, fromTitle: str(b.fromTitle, MAX_NAME) ?? b.fromWorld, heard };
}
