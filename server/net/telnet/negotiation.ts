/**
 * Telnet option negotiation state, after RFC 1143 ("the Q method"): for each option, our side ("us": we WILL
 * or WONT perform it) and the peer's side ("him": it WILL or WONT) are each NO, YES, WANTNO or WANTYES, with
 * a one-slot queue for a change of mind while a request is outstanding. Properties this guarantees:
 * - an answer is never answered (no negotiation loops, whatever the peer does);
 * - a request for an option we do not support is refused with DONT/WONT at most once per option;
 * - requests we start (enable/disable) are sent only when they change something.
 *
 * Pure: it returns the bytes' meaning (what to send, what changed); the connection writes them.
 */
import { DO, DONT, WILL, WONT, type Verb } from './constants.js';

type Q = 'no' | 'yes' | 'wantno' | 'wantyes';
type Queue = 'empty' | 'opposite';
export type Side = 'us' | 'him';

interface OptionState {
  us: Q;
  usq: Queue;
  him: Q;
  himq: Queue;
}

export interface NegotiationResult {
  /** Negotiations to write, in order. */
  send: Array<{ verb: Verb; option: number }>;
  /** Options that became enabled or disabled. */
  changes: Array<{ side: Side; option: number; enabled: boolean }>;
  /** Set when a request of ours was refused by the peer (for options we offered). */
  refused: Array<{ side: Side; option: number }>;
}

export interface NegotiationPolicy {
  /** May we perform this option when the peer asks us to (IAC DO option)? */
  acceptUs(option: number): boolean;
  /** May the peer perform this option when it offers to (IAC WILL option)? */
  acceptHim(option: number): boolean;
}

export class Negotiation {
  private readonly table = new Map<number, OptionState>();
  private readonly refusedOnce = new Set<number>(); // side 'us' as option, side 'him' as option + 256

  constructor(private readonly policy: NegotiationPolicy) {}

  isEnabled(side: Side, option: number): boolean {
    const s = this.table.get(option);
    return s !== undefined && s[side] === 'yes';
  }

  /** True while a request of ours for this option awaits its answer. */
  isPending(side: Side, option: number): boolean {
    const s = this.table.get(option);
    return s !== undefined && (s[side] === 'wantyes' || s[side] === 'wantno');
  }

  /** Ask to enable an option: on our side (send WILL) or the peer's (send DO). */
  enable(side: Side, option: number): NegotiationResult {
    const r = empty();
    const s = this.state(option);
    const q = side === 'us' ? 'usq' : 'himq';
    switch (s[side]) {
      case 'no':
        s[side] = 'wantyes';
        r.send.push({ verb: side === 'us' ? WILL : DO, option });
        break;
      case 'wantno':
        s[q] = 'opposite';
        break;
      case 'wantyes':
        s[q] = 'empty';
        break;
      case 'yes':
        break;
    }
    return r;
  }

  /** Ask to disable an option: on our side (send WONT) or the peer's (send DONT). */
  disable(side: Side, option: number): NegotiationResult {
    const r = empty();
    const s = this.state(option);
    const q = side === 'us' ? 'usq' : 'himq';
    switch (s[side]) {
      case 'yes':
        s[side] = 'wantno';
        r.send.push({ verb: side === 'us' ? WONT : DONT, option });
        r.changes.push({ side, option, enabled: false });
        break;
      case 'wantyes':
        s[q] = 'opposite';
        break;
      case 'wantno':
        s[q] = 'empty';
        break;
      case 'no':
        break;
    }
    return r;
  }

  /** Handle a received IAC WILL/WONT/DO/DONT. */
  receive(verb: Verb, option: number): NegotiationResult {
    const r = empty();
    const s = this.state(option);
    // WILL/WONT speak about the peer's side; DO/DONT about ours.
    const side: Side = verb === WILL || verb === WONT ? 'him' : 'us';
    const positive = verb === WILL || verb === DO;
    const q = side === 'us' ? 'usq' : 'himq';
    const yesVerb: Verb = side === 'him' ? DO : WILL;
    const noVerb: Verb = side === 'him' ? DONT : WONT;
    const accept = side === 'him' ? this.policy.acceptHim(option) : this.policy.acceptUs(option);

    if (positive) {
      switch (s[side]) {
        case 'no':
          if (accept) {
            s[side] = 'yes';
            r.send.push({ verb: yesVerb, option });
            r.changes.push({ side, option, enabled: true });
          } else {
            const key = side === 'us' ? option : option + 256;
            if (!this.refusedOnce.has(key)) {
              this.refusedOnce.add(key);
              r.send.push({ verb: noVerb, option });
            }
          }
          break;
        case 'yes':
          break; // already enabled: an answer, or a repeat; never answered
        case 'wantno':
          if (s[q] === 'empty') {
            s[side] = 'no'; // peer answered our disable with an enable: protocol error, stay disabled
          } else {
            s[side] = 'yes';
            s[q] = 'empty';
            r.changes.push({ side, option, enabled: true });
          }
          break;
        case 'wantyes':
          if (s[q] === 'empty') {
            s[side] = 'yes';
            r.changes.push({ side, option, enabled: true });
          } else {
            // We changed our mind while waiting: ask to disable again.
            s[side] = 'wantno';
            s[q] = 'empty';
            r.send.push({ verb: noVerb, option });
          }
          break;
      }
    } else {
      switch (s[side]) {
        case 'no':
          break; // already disabled: never answered
        case 'yes':
          s[side] = 'no';
          r.send.push({ verb: noVerb, option });
          r.changes.push({ side, option, enabled: false });
          break;
        case 'wantno':
          if (s[q] === 'empty') {
            s[side] = 'no';
          } else {
            s[side] = 'wantyes';
            s[q] = 'empty';
            r.send.push({ verb: yesVerb, option });
          }
          break;
        case 'wantyes':
          s[side] = 'no';
          s[q] = 'empty';
          r.refused.push({ side, option });
          break;
      }
    }
    return r;
  }

  private state(option: number): OptionState {
    let s = this.table.get(option);
    if (!s) {
      s = { us: 'no', usq: 'empty', him: 'no', himq: 'empty' };
      this.table.set(option, s);
    }
    return s;
  }
}

function empty(): NegotiationResult {
  return { send: [], changes: [], refused: [] };
}
