/**
 * What a character needs to decide its turn, read from a live World in one pass: the grounded
 * facts (setting, persona, partners, objects), its valid actions, and, when it was just spoken to,
 * the rule-based readings of that line (a request plan, a truthful answer about itself, a cue).
 * Plain data: the live host computes it in its worker (server/host) and posts it to the agents on
 * the main thread; episodes compute it in-process.
 */
import { validActions } from '../engine/index.js';
import type { NodeId } from '../engine/types.js';
import type { World } from '../engine/world.js';
import type { ContextFacts } from './context.js';
import { cueOf, type Cue } from './cues.js';
import { factsFor } from './facts.js';
import { planRequest, type RequestPlan } from './requests.js';
import { answerSelfQuestion } from './self-state.js';

export interface Heard {
  /** Who said it. */
  from: NodeId;
  text: string;
}

export interface ViewOptions {
  /** The line the character is answering, if any. */
  heard?: Heard;
  /** The object named last in this conversation (for "give it to me"). */
  lastObject?: string;
  /** The characters to treat as partners (default: everyone else in the room). */
  partners?: NodeId[];
  /** The character's valid actions, when already known (the host caches them). */
  validActions?: string[];
}

export interface AgentView {
  self: NodeId;
  /** Grounded facts without history (the caller adds its memory). */
  facts: ContextFacts;
  validActions: string[];
  /** The character it is answering (the speaker of `heard`), or the only other one in the room. */
  partner?: { id: NodeId; name: string };
  /** Everyone else in the room. */
  others: { id: NodeId; name: string }[];
  /** A request in the heard line, planned and checked on a clone. */
  plan?: RequestPlan;
  /** A truthful answer, from the graph, when the heard line asks about the character's own things. */
  answer?: string;
  cue?: Cue;
}

export function agentView(world: World, self: NodeId, opts: ViewOptions = {}): AgentView | null {
  const me = world.character(self);
  const room = world.roomOf(self);
  if (!me || !room) return null;
  const present = world.charactersIn(room).filter((c) => c.id !== self);
  const partnerIds = opts.partners ?? present.map((c) => c.id);
  const facts = factsFor(world, self, [], partnerIds);
  const others = present.map((c) => ({ id: c.id, name: c.name }));
  const view: AgentView = { self, facts, validActions: opts.validActions ?? validActions(world, self), others };
  const speaker = opts.heard && present.find((c) => c.id === opts.heard!.from);
  if (speaker) view.partner = { id: speaker.id, name: speaker.name };
  else if (present.length === 1) view.partner = { id: present[0]!.id, name: present[0]!.name };
  if (opts.heard && speaker) {
    const text = opts.heard.text;
    const answer = answerSelfQuestion(world, self, text);
    if (answer) view.answer = answer;
    const plan = planRequest(world, self, speaker.id, text, { lastObject: opts.lastObject });
    if (plan) view.plan = plan;
    const cue = cueOf(text);
    if (cue) view.cue = cue;
  }
  return view;
}
