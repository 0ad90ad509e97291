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
import { answersAbout } from './about.js';
import { answerWay } from './directions.js';

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
  /**
   * The character being talked to or acted with when nobody just spoke (the last to speak to or act
   * on this one, or the one it last addressed); used when present.
   */
  partner?: NodeId;
  /** The characters to treat as partners when there is no partner (default: everyone else in the room). */
  partners?: NodeId[];
  /** The character's valid actions, when already known (the host caches them). */
  validActions?: string[];
}

export interface AgentView {
  self: NodeId;
  /** Grounded facts without history (the caller adds its memory). */
  facts: ContextFacts;
  validActions: string[];
  /**
   * The partner: the character it is answering (the speaker of `heard`), else the one given as
   * `partner` if present, else the only other one in the room. The context's `_partner_name` is this
   * character alone; without a partner it lists everyone present.
   */
  partner?: { id: NodeId; name: string };
  /** Everyone else in the room. */
  others: { id: NodeId; name: string }[];
  /** Names of every object here: in the room at any depth, held by anyone present, its own. */
  objects: string[];
  /** Names of what the character itself carries, wears or wields. */
  held: string[];
  /** A request in the heard line, planned and checked on a clone. */
  plan?: RequestPlan;
  /** A truthful answer, from the graph, when the heard line asks about the character's own things, the place or itself. */
  answer?: string;
  /**
   * Set for answers about the place or the character itself, which are not said twice: further true
   * answers, for when `answer` was said already ("Tell me more about yourself").
   */
  moreAnswers?: string[];
  cue?: Cue;
}

export function agentView(world: World, self: NodeId, opts: ViewOptions = {}): AgentView | null {
  const me = world.character(self);
  const room = world.roomOf(self);
  if (!me || !room) return null;
  const present = world.charactersIn(room).filter((c) => c.id !== self);
  const speaker = opts.heard && present.find((c) => c.id === opts.heard!.from);
  const partner = speaker ?? present.find((c) => c.id === opts.partner) ?? (present.length === 1 ? present[0] : undefined);
  const facts = factsFor(world, self, [], partner ? [partner.id] : (opts.partners ?? present.map((c) => c.id)));
  const others = present.map((c) => ({ id: c.id, name: c.name }));
  const objects: string[] = [];
  const held: string[] = [];
  for (const id of world.visibleFrom(self)) {
    const o = world.object(id);
    if (!o) continue;
    objects.push(o.name);
    if (world.holderOf(id) === self) held.push(o.name);
  }
  const view: AgentView = { self, facts, validActions: opts.validActions ?? validActions(world, self), others, objects, held };
  if (partner) view.partner = { id: partner.id, name: partner.name };
  if (opts.heard && speaker) {
    const text = opts.heard.text;
    const answer = answerSelfQuestion(world, self, text);
    if (answer) view.answer = answer;
    else {
      const [first, ...more] = answersAbout(world, self, text);
      const way = first ? undefined : answerWay(world, self, text);
      if (first) {
        view.answer = first;
        view.moreAnswers = more;
      } else if (way) view.answer = way;
    }
    const plan = planRequest(world, self, speaker.id, text, { lastObject: opts.lastObject });
    if (plan) view.plan = plan;
    const cue = cueOf(text);
    if (cue) view.cue = cue;
    // "I'm starving." / "I'm parched.": offered what the character has to eat or drink, as if asked
    // for it; nothing to offer is no refusal (nothing was asked)
    if (!plan && (cue === 'hungry' || cue === 'thirsty')) {
      const offer = planRequest(world, self, speaker.id, cue === 'hungry' ? 'Give me something to eat.' : 'Give me something to drink.');
      if (offer && !offer.failure && offer.steps.length) view.plan = offer;
    }
  }
  return view;
}
