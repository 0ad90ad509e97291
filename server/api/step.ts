/**
 * The step API, TextWorld/Gym style: `POST /api/agent/reset` {seed?, character?, maxMoves?} starts
 * an episode, `POST /api/agent/step` {command} plays one move:
 *   -> {observation, done, admissible_commands, infos: {score, moves, inventory, ...}}
 *
 * Each episode is a fresh copy of the server's world built with the episode's seed, private to
 * that agent, not the shared world: an episode must be repeatable (same seed and commands, same
 * observations) and resettable at will, and neither is possible in a world that other players and
 * model characters change meanwhile (nor may one agent's reset undo their game). So nobody else
 * acts in an episode, and its moves are not in the shared event log. The engine is pure and a move
 * costs about 0.1 ms on the bundled world (median; see server/api/README.md), so episodes run in the
 * network thread.
 *
 * Score: LIGHT has no goals, so the score is the number of distinct graph actions (canonical text,
 * "get shovel") carried out in the episode: it grows by doing new things, not by repeating one.
 * `done` is true once `maxMoves` moves (default 100) are played (a time limit, as in Gym).
 *
 * Auth: reset without a header makes a guest episode; its `episode` token is then sent as
 * `Authorization: Bearer TOKEN`. With an agent key, reset and step send the key, and step plays the
 * key's latest episode (or the one named by `episode` in the body).
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Rng, World, execute, inventory as inventoryText, look, validActions, type WorldState } from '../engine/index.js';
import { loadWorld } from '../world-io/load-world.js';
import type { Host } from '../host/host.js';
import type { AgentHub } from './agent-hub.js';

export const DEFAULT_MAX_MOVES = 100;
/** Episodes held at once: each is a copy of the world (the bundled world: about 0.5 MB of heap). */
const MAX_EPISODES = 200;
const EPISODE_PREFIX = 'lme_';

export interface StepInfos {
  score: number;
  moves: number;
  /** What the character holds: "shovel", "straw hat (worn)", "club (wielded)". */
  inventory: string[];
  max_moves: number;
  seed: number;
  character: string;
  /** Whether the command was understood and carried out. */
  ok: boolean;
}

export interface StepReply {
  observation: string;
  done: boolean;
  admissible_commands: string[];
  infos: StepInfos;
}

interface Episode {
  id: string;
  owner: string;
  keyed: boolean;
  world: World;
  actor: string;
  seed: number;
  moves: number;
  maxMoves: number;
  achieved: Set<string>;
  lastUsed: number;
}

export class StepError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

export class StepEpisodes {
  private episodes = new Map<string, Episode>();
  private latestByKey = new Map<string, string>();
  /** Built worlds by seed (a few): building the bundled world takes longer than copying it. */
  private built = new Map<number, WorldState>();

  constructor(private host: Host, private opts: { idleMs: number }) {}

  get size(): number {
    return this.episodes.size;
  }

  private worldFor(seed: number): World {
    let state = this.built.get(seed);
    if (!state) {
      state = loadWorld(this.host.info.source, { seed }).state;
      this.built.set(seed, state);
      if (this.built.size > 8) this.built.delete(this.built.keys().next().value!);
    }
    return new World(structuredClone(state));
  }

  reset(owner: { agent: string; keyed: boolean }, body: { seed?: unknown; character?: unknown; maxMoves?: unknown }, existing?: Episode): { episode: string; reply: StepReply } {
    const seed = body.seed === undefined ? 1 : Number(body.seed);
    if (!Number.isInteger(seed) || seed < 0 || seed > 2 ** 31) throw new StepError(400, '"seed" must be a whole number from 0 to 2^31.');
    const maxMoves = body.maxMoves === undefined ? DEFAULT_MAX_MOVES : Number(body.maxMoves);
    if (!Number.isInteger(maxMoves) || maxMoves < 1 || maxMoves > 100_000) throw new StepError(400, '"maxMoves" must be a whole number from 1 to 100000.');
    if (body.character !== undefined && typeof body.character !== 'string') throw new StepError(400, '"character" must be a string (a name or id).');
    const world = this.worldFor(seed);
    const people = world.characters().filter((c) => world.roomOf(c.id));
    if (!people.length) throw new StepError(409, 'This world has no characters to play.');
    let actor: string;
    if (body.character) {
      const q = body.character.toLowerCase();
      const found = people.find((c) => c.id.toLowerCase() === q) ?? people.find((c) => c.name.toLowerCase() === q);
      if (!found) throw new StepError(404, `There is no character "${body.character}" in this world.`);
      actor = found.id;
    } else {
      actor = new Rng(seed).pick(people).id;
    }
    if (!existing && this.episodes.size >= MAX_EPISODES) throw new StepError(503, `Too many episodes (${MAX_EPISODES}); try again later.`);
    const id = existing?.id ?? EPISODE_PREFIX + randomBytes(18).toString('base64url');
    const ep: Episode = { id, owner: owner.agent, keyed: owner.keyed, world, actor, seed, moves: 0, maxMoves, achieved: new Set(), lastUsed: Date.now() };
    this.episodes.set(id, ep);
    if (owner.keyed) this.latestByKey.set(owner.agent, id);
    const me = world.character(actor)!;
    const intro = `You are ${me.name}.${me.persona ? ` ${me.persona}` : ''}\n${look(world, actor)}`;
    return { episode: id, reply: this.reply(ep, intro, true) };
  }

  step(ep: Episode, command: unknown): StepReply {
    if (typeof command !== 'string' || !command.trim()) throw new StepError(400, 'step needs {"command": "..."}, e.g. {"command": "get shovel"}.');
    ep.lastUsed = Date.now();
    if (ep.moves >= ep.maxMoves) return this.reply(ep, `The episode is over (${ep.maxMoves} moves); reset to play again.`, false);
    const out = execute(ep.world, ep.actor, command);
    ep.moves++;
    if (out.ok && out.action) ep.achieved.add(out.action);
    return this.reply(ep, out.text, out.ok);
  }

  private reply(ep: Episode, observation: string, ok: boolean): StepReply {
    const w = ep.world;
    const room = w.room(w.roomOf(ep.actor) ?? '');
    const admissible = [...validActions(w, ep.actor), ...(room?.exits.map((e) => `go ${e.label}`) ?? []), 'look', 'inventory'];
    const held = [
      ...w.objectsIn(ep.actor, 'carried').map((o) => o.name),
      ...w.objectsIn(ep.actor, 'worn').map((o) => `${o.name} (worn)`),
      ...w.objectsIn(ep.actor, 'wielded').map((o) => `${o.name} (wielded)`),
    ];
    return {
      observation,
      done: ep.moves >= ep.maxMoves,
      admissible_commands: admissible,
      infos: { score: ep.achieved.size, moves: ep.moves, inventory: held, max_moves: ep.maxMoves, seed: ep.seed, character: ep.actor, ok },
    };
  }

  /** The episode a request may play: by its own token, or an agent key's (latest or named). */
  find(bearer: string | null, keyAgent: string | null, named: unknown): Episode {
    if (bearer?.startsWith(EPISODE_PREFIX)) {
      const ep = this.episodes.get(bearer);
      if (!ep) throw new StepError(404, 'That episode is unknown or has expired; reset to start one.');
      return ep;
    }
    if (keyAgent === null) throw new StepError(401, 'Send "Authorization: Bearer TOKEN" with the episode token from reset, or an agent key.');
    const id = typeof named === 'string' ? named : this.latestByKey.get(keyAgent);
    const ep = id ? this.episodes.get(id) : undefined;
    if (!ep || !ep.keyed || ep.owner !== keyAgent) throw new StepError(404, 'No such episode for this agent key; reset to start one.');
    return ep;
  }

  /** A guest episode's own token lets it be reset in place. */
  byToken(bearer: string | null): Episode | undefined {
    return bearer?.startsWith(EPISODE_PREFIX) ? this.episodes.get(bearer) : undefined;
  }

  sweep(now = Date.now()): void {
    if (this.opts.idleMs <= 0) return;
    for (const [id, ep] of this.episodes) {
      if (now - ep.lastUsed <= this.opts.idleMs) continue;
      this.episodes.delete(id);
      if (this.latestByKey.get(ep.owner) === id) this.latestByKey.delete(ep.owner);
    }
  }
}

const bearerOf = (req: FastifyRequest): string | null => /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1] ?? null;

function fail(reply: FastifyReply, err: unknown): FastifyReply {
  if (err instanceof StepError) return reply.code(err.status).send({ error: err.message });
  throw err;
}

export function registerStepApi(app: FastifyInstance, hub: AgentHub, episodes: StepEpisodes): void {
  app.post('/api/agent/reset', async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    try {
      const mine = episodes.byToken(bearerOf(req));
      if (mine) return { episode: mine.id, ...episodes.reset({ agent: mine.owner, keyed: mine.keyed }, body, mine).reply };
      const auth = hub.authenticate(req.headers.authorization);
      if (!auth.ok) return reply.code(401).send({ error: auth.message });
      const r = episodes.reset(auth.identity, body);
      return { episode: r.episode, ...r.reply };
    } catch (err) {
      return fail(reply, err);
    }
  });
  app.post('/api/agent/step', async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    try {
      const bearer = bearerOf(req);
      let keyAgent: string | null = null;
      if (bearer && !bearer.startsWith(EPISODE_PREFIX)) {
        const auth = hub.authenticate(req.headers.authorization);
        if (!auth.ok) return reply.code(401).send({ error: auth.message });
        keyAgent = auth.identity.agent;
      }
      return episodes.step(episodes.find(bearer, keyAgent, body.episode), body.command);
    } catch (err) {
      return fail(reply, err);
    }
  });
}
