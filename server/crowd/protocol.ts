/**
 * Frames of the crowd task page's websocket (/crowd/ws), JSON one per message, shared by the server
 * (server/crowd/room.ts) and the browser page (clients/web/crowd.js).
 *
 * The page sends `join` with the task and the worker's platform id; the server answers `waiting`
 * until a partner is found, then `paired` (persona, setting, partner, rules), `state` frames (the
 * character's surroundings and valid actions, as the main protocol's), `log` lines, and `turn`
 * frames saying whose turn it is. The worker sends `turn` (one utterance, at most one action or
 * emote); a line the checks refuse comes back as `refused` (the page keeps the text). At the end
 * `end` asks for the end form; after `form`, `done` gives the completion code.
 */
import type { CharacterState } from '../net/protocol.js';

export type CrowdClientFrame =
  | { type: 'join'; task: string; worker: string }
  | { type: 'turn'; say: string; act?: string }
  | { type: 'form'; rating: number; report?: string; feedback?: string }
  /** The answer to the onboarding question (index of the choice). */
  | { type: 'onboard'; choice: number }
  | { type: 'ping' };

export interface PairedFrame {
  type: 'paired';
  episode: string;
  you: { id: string; name: string; persona: string };
  partner: { id: string; name: string; persona: string; kind: 'human' | 'model' | 'script' };
  setting: { name: string; category: string; description: string };
  turns: number;
  turnSeconds: number;
  warningSeconds: number;
  reward: string;
  instructions: string;
}

export interface LogLine {
  /** 'you': your own turn as the engine told you; 'partner': what your partner did as you saw it; 'system': the task. */
  who: 'you' | 'partner' | 'system';
  text: string;
  /** The partner is a model or script character. */
  model?: boolean;
}

export type CrowdServerFrame =
  | { type: 'task'; title: string; reward: string; instructions: string; turns: number }
  | { type: 'waiting'; position: number; fallbackSeconds: number | null }
  /** Before the first unit: read this, answer the question. */
  | { type: 'onboarding'; text: string; question: string; choices: string[] }
  | PairedFrame
  | ({ type: 'state' } & CharacterState)
  | ({ type: 'log' } & LogLine)
  /** Whose turn: `yours`, the turn number (1-based) of `of`, seconds left. */
  | { type: 'turn'; yours: boolean; turn: number; of: number; seconds: number }
  | { type: 'warning'; seconds: number }
  | { type: 'accepted' }
  | { type: 'refused'; problems: string[] }
  | { type: 'partner'; status: 'away' | 'back' | 'replaced' | 'gone'; message: string }
  | { type: 'end'; reason: string }
  | { type: 'done'; code: string }
  | { type: 'closed'; message: string }
  | { type: 'error'; message: string }
  | { type: 'pong' };

/** Parse a page's frame; null when malformed. */
export function parseCrowdFrame(text: string): CrowdClientFrame | null {
  let f: unknown;
  try {
    f = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof f !== 'object' || f === null) return null;
  const o = f as Record<string, unknown>;
  const s = (v: unknown, max: number) => typeof v === 'string' && v.length <= max;
  switch (o.type) {
    case 'join':
      return s(o.task, 64) && s(o.worker, 200) && (o.worker as string).length > 0 ? { type: 'join', task: o.task as string, worker: o.worker as string } : null;
    case 'turn':
      if (!s(o.say, 1000) || (o.act !== undefined && !s(o.act, 200))) return null;
      return o.act ? { type: 'turn', say: o.say as string, act: o.act as string } : { type: 'turn', say: o.say as string };
    case 'form': {
      const r = o.rating;
      if (typeof r !== 'number' || !Number.isInteger(r) || r < 1 || r > 5) return null;
      if (o.report !== undefined && !s(o.report, 2000)) return null;
      if (o.feedback !== undefined && !s(o.feedback, 4000)) return null;
      return { type: 'form', rating: r, ...(o.report ? { report: o.report as string } : {}), ...(o.feedback ? { feedback: o.feedback as string } : {}) };
    }
    case 'onboard':
      return typeof o.choice === 'number' && Number.isInteger(o.choice) && o.choice >= 0 && o.choice < 100 ? { type: 'onboard', choice: o.choice } : null;
    case 'ping':
      return { type: 'ping' };
    default:
      return null;
  }
}
