/**
 * Model-vs-model episodes in LIGHT's setup: two characters placed in a location (characters who
 * live there, or random ones), with the location's objects and their own, taking turns; each turn
 * one utterance and at most one action or emote, chosen by the model policy and executed by the
 * engine on a staged copy of the world.
 *
 * Episodes run in lockstep groups, so each turn's ranking is batched across the group (one context
 * encoding per phase, one pool search). Everything random comes from a per-episode Rng seeded by
 * (seed, episode number), so an episode is the same whatever the group size or the number of
 * episodes asked for.
 */
import { execute, Rng, validActions } from '../engine/index.js';
import type { NodeId } from '../engine/types.js';
import type { World } from '../engine/world.js';
import type { Episode, EpisodeTurn } from '../episodes/episode.js';
import { replayEpisode, type ReplayProblem } from '../episodes/replay.js';
import { stageEpisode } from '../episodes/stage.js';
import type { HistoryEntry } from './context.js';
import { flowOf } from './conversation-flow.js';
import type { Policy, TurnChoice } from './policy.js';
import { agentView } from './view.js';

/** An episode played by models: the written format plus what the characters started with. */
export interface ModelEpisode extends Episode {
  source: 'model';
  seed: number;
  setting: { name: string; category: string; description: string };
  personas: { id: NodeId; name: string; persona: string }[];
  /** Names of the objects in the room and of those each character carries, wears or wields, at the start. */
  objects: { room: string[]; carried: Record<NodeId, string[]> };
  /** Per turn, where each part came from (rule or model); same length as turns. */
  why?: TurnChoice['why'][];
}

export interface EpisodeOptions {
  n: number;
  /** Index of the first episode (default 0): episodes first .. first+n-1 of the run, the same as in a run from 0. */
  first?: number;
  turns: number;
  seed: number;
  /** Episodes played together (batched ranking). Default 16. */
  group?: number;
  /** Only these rooms (default: every room with at least one character). */
  rooms?: NodeId[];
  /** Id prefix (default "model-<seed>"). */
  prefix?: string;
  onEpisode?: (ep: ModelEpisode, index: number) => void | Promise<void>;
  onProgress?: (done: number, total: number) => void;
}

export interface EpisodeStats {
  episodes: number;
  turns: number;
  actions: number;
  emotes: number;
  /** Actions the engine refused (should be 0: only valid actions are chosen). */
  refused: number;
  seconds: number;
}

/** A 32-bit seed for episode `i` of run `seed` (splitmix-like mixing). */
export function episodeSeed(seed: number, i: number): number {
  let h = (Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(i + 1, 0x85ebca6b)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** Where everyone starts: the room each character is placed in by the world file. */
function homes(world: World): Map<NodeId, NodeId[]> {
  const out = new Map<NodeId, NodeId[]>();
  for (const c of world.characters()) {
    const r = world.roomOf(c.id);
    if (!r) continue;
    if (!out.has(r)) out.set(r, []);
    out.get(r)!.push(c.id);
  }
  return out;
}

/** LIGHT's casting: a room, and two characters who live there (or random ones when fewer do). */
export function castEpisode(world: World, rng: Rng, rooms: NodeId[], home: Map<NodeId, NodeId[]>): { room: NodeId; characters: [NodeId, NodeId] } {
  const room = rng.pick(rooms);
  const locals = rng.shuffle([...(home.get(room) ?? [])]);
  const everyone = world.characters().map((c) => c.id);
  const cast = locals.slice(0, 2);
  while (cast.length < 2) {
    const c = rng.pick(everyone);
    if (!cast.includes(c)) cast.push(c);
  }
  return { room, characters: [cast[0]!, cast[1]!] };
}

interface Live {
  index: number;
  ep: ModelEpisode;
  world: World;
  log: { speaker: NodeId; kind: HistoryEntry['kind']; text: string }[];
  lastSay: { from: NodeId; text: string } | null;
  lastObject?: string;
  queued: Map<NodeId, string[]>;
  rng: Rng;
}

function startEpisode(world: World, index: number, seed: number, rooms: NodeId[], home: Map<NodeId, NodeId[]>, prefix: string): Live {
  const rng = new Rng(episodeSeed(seed, index));
  const { room, characters } = castEpisode(world, rng, rooms, home);
  const staged = stageEpisode(world, room, characters);
  const r = staged.room(room)!;
  const ep: ModelEpisode = {
    id: `${prefix}-${String(index + 1).padStart(5, '0')}`,
    room,
    characters,
    source: 'model',
    seed,
    setting: { name: r.name, category: r.category, description: r.description },
    personas: characters.map((id) => {
      const c = staged.character(id)!;
      return { id, name: c.name, persona: c.persona };
    }),
    objects: {
      room: staged.objectsIn(room).map((o) => o.name),
      carried: Object.fromEntries(characters.map((id) => [id, staged.objectsIn(id).map((o) => o.name)])),
    },
    turns: [],
    why: [],
  };
  return { index, ep, world: staged, log: [], lastSay: null, queued: new Map(), rng };
}

function historyFor(live: Live, self: NodeId): HistoryEntry[] {
  return live.log.map((t) => ({ speaker: t.speaker === self ? 'self' : 'partner', kind: t.kind, text: t.text }));
}

/** The object an action is about: "give flask of rum to baker" -> "flask of rum". */
export function objectOfAction(action: string): string | undefined {
  const m = /^(?:give|steal) (.+?) (?:to|from) /.exec(action) ?? /^put (.+?) (?:in|on) /.exec(action) ?? /^(?:get|drop|wear|wield|remove|eat|drink) (.+?)(?: from .+)?$/.exec(action);
  return m?.[1];
}

/** Apply one chosen turn to an episode: speech, then at most one action (or else one emote). */
function applyTurn(live: Live, speaker: NodeId, choice: TurnChoice, stats: EpisodeStats): void {
  const w = live.world;
  const turn: EpisodeTurn = { speaker, say: '' };
  const say = choice.say.trim();
  if (say && execute(w, speaker, `say ${say}`).ok) {
    turn.say = say;
    live.log.push({ speaker, kind: 'say', text: say });
    live.lastSay = { from: speaker, text: say };
  }
  const [first, ...rest] = choice.actions;
  let acted = false;
  if (first !== undefined) {
    // Only an action the engine lists as valid now is executed.
    if (validActions(w, speaker).includes(first)) {
      const out = execute(w, speaker, first);
      if (out.ok && out.action === first) {
        turn.action = first;
        live.log.push({ speaker, kind: 'act', text: first });
        acted = true;
        stats.actions++;
      } else stats.refused++;
    } else stats.refused++;
    if (rest.length) live.queued.set(speaker, rest);
    else live.queued.delete(speaker);
  }
  if (!acted && choice.emote) {
    turn.emote = choice.emote;
    live.log.push({ speaker, kind: 'emote', text: choice.emote });
    stats.emotes++;
  }
  if (!turn.say && !turn.action && !turn.emote) {
    // Nothing could be said or done: a shrug keeps the episode well formed.
    turn.emote = 'shrug';
    live.log.push({ speaker, kind: 'emote', text: 'shrug' });
    stats.emotes++;
  }
  live.ep.turns.push(turn);
  live.ep.why!.push(choice.why);
  stats.turns++;
}

/** Play `n` episodes of `turns` turns each. */
export async function runEpisodes(world: World, policy: Policy, opts: EpisodeOptions): Promise<EpisodeStats> {
  const t0 = performance.now();
  const home = homes(world);
  const rooms = opts.rooms ?? world.rooms().filter((r) => world.charactersIn(r.id).length > 0).map((r) => r.id);
  if (!rooms.length) throw new Error('the world has no room with a character in it');
  if (world.characters().length < 2) throw new Error('an episode needs at least two characters in the world');
  const group = Math.max(1, opts.group ?? 16);
  const prefix = opts.prefix ?? `model-${opts.seed}`;
  const stats: EpisodeStats = { episodes: 0, turns: 0, actions: 0, emotes: 0, refused: 0, seconds: 0 };
  const first = Math.max(0, opts.first ?? 0);
  const end = first + opts.n;
  for (let start = first; start < end; start += group) {
    const lives: Live[] = [];
    for (let i = start; i < Math.min(end, start + group); i++) lives.push(startEpisode(world, i, opts.seed, rooms, home, prefix));
    for (let t = 0; t < opts.turns; t++) {
      // An episode ends early when one of its characters has died (hit to 0 health), or when every one
      // of them has said goodbye and heard nothing since but goodbyes (conversation-flow.ts).
      const playing = lives.filter((live) => live.ep.characters.every((id) => live.world.character(id)) && !live.ep.characters.every((id) => flowOf(historyFor(live, id)).closed));
      if (!playing.length) break;
      const inputs = playing.map((live) => {
        const speaker = live.ep.characters[t % 2]!;
        const partner = live.ep.characters[(t + 1) % 2]!;
        const heard = live.lastSay && live.lastSay.from !== speaker ? live.lastSay : undefined;
        const view = agentView(live.world, speaker, { heard, lastObject: live.lastObject, partner, partners: [partner] })!;
        if (view.plan?.lastObject) live.lastObject = view.plan.lastObject;
        const queued = live.queued.get(speaker);
        return { speaker, input: { view, history: historyFor(live, speaker), queued: queued?.[0], variant: live.rng.int(1 << 30) } };
      });
      const choices = await policy.decide(inputs.map((x) => x.input));
      playing.forEach((live, j) => {
        const { speaker, input } = inputs[j]!;
        const choice = choices[j]!;
        // A queued step that was taken is consumed; the rest of its plan stays queued.
        if (choice.why.act === 'plan') {
          const q = live.queued.get(speaker) ?? [];
          q.shift();
          choice.actions = [input.queued!, ...q];
        } else if (input.queued !== undefined) live.queued.delete(speaker); // the plan no longer applies
        applyTurn(live, speaker, choice, stats);
        const acted = live.ep.turns[live.ep.turns.length - 1]!.action;
        const obj = acted ? objectOfAction(acted) : undefined;
        if (obj) live.lastObject = obj;
      });
    }
    for (const live of lives) {
      stats.episodes++;
      await opts.onEpisode?.(live.ep, live.index);
      opts.onProgress?.(stats.episodes, opts.n);
    }
  }
  stats.seconds = (performance.now() - t0) / 1000;
  return stats;
}

/** Replay episodes in the engine; every problem found (an empty list when all match). */
export function verifyEpisodes(world: World, episodes: Episode[]): ReplayProblem[] {
  return episodes.flatMap((ep) => replayEpisode(world, ep));
}
