/**
 * An incremental telnet byte parser (RFC 854/855): a state machine over chunks that splits a byte stream into
 * plain data, commands (IAC x), negotiations (IAC WILL/WONT/DO/DONT option) and subnegotiations
 * (IAC SB option ... IAC SE, with IAC IAC unescaped inside). Any sequence may be split across chunks at any byte.
 *
 * Broken input is recovered from rather than trusted:
 * - IAC followed by a byte other than IAC or SE inside a subnegotiation ends the subnegotiation (reported as
 *   'bad_subnegotiation') and the IAC x is then read as a command outside it, so a client that forgets IAC SE
 *   loses one subnegotiation, not the rest of its session;
 * - a subnegotiation longer than `maxSubnegotiation` bytes is reported and discarded up to its IAC SE, keeping
 *   memory bounded;
 * - a stray IAC SE outside a subnegotiation is reported as a command and can be ignored.
 *
 * Pure: no I/O, no timers. Data events are views into the chunk fed in (copy them if the chunk is reused).
 */
import { DO, DONT, IAC, SB, SE, WILL, WONT, type Verb } from './constants.js';

export type TelnetEvent =
  | { type: 'data'; data: Buffer }
  | { type: 'command'; command: number }
  | { type: 'negotiate'; verb: Verb; option: number }
  | { type: 'sub'; option: number; data: Buffer }
  | { type: 'error'; code: 'bad_subnegotiation' | 'subnegotiation_too_long'; message: string };

const enum State {
  Data,
  Iac,
  Negotiate,
  SbOption,
  SbData,
  SbIac,
  SbDiscard,
  SbDiscardIac,
}

export interface ParserOptions {
  /** Largest subnegotiation payload kept, in bytes (default 65536). */
  maxSubnegotiation?: number;
}

export class TelnetParser {
  private state: State = State.Data;
  private verb: Verb = WILL;
  private sbOption = 0;
  private sbParts: Buffer[] = [];
  private sbLength = 0;
  private readonly maxSub: number;

  constructor(opts: ParserOptions = {}) {
    this.maxSub = opts.maxSubnegotiation ?? 65536;
  }

  /** Parse one chunk, calling `emit` for each event in order. */
  feed(chunk: Uint8Array, emit: (ev: TelnetEvent) => void): void {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const n = buf.length;
    let i = 0;
    while (i < n) {
      switch (this.state) {
        case State.Data: {
          const at = buf.indexOf(IAC, i);
          const end = at < 0 ? n : at;
          if (end > i) emit({ type: 'data', data: buf.subarray(i, end) });
          if (at < 0) return;
          this.state = State.Iac;
          i = at + 1;
          break;
        }
        case State.Iac: {
          const b = buf[i++]!;
          this.iacByte(b, emit);
          break;
        }
        case State.Negotiate: {
          const option = buf[i++]!;
          this.state = State.Data;
          emit({ type: 'negotiate', verb: this.verb, option });
          break;
        }
        case State.SbOption: {
          this.sbOption = buf[i++]!;
          this.sbParts = [];
          this.sbLength = 0;
          this.state = State.SbData;
          break;
        }
        case State.SbData: {
          const at = buf.indexOf(IAC, i);
          const end = at < 0 ? n : at;
          if (end > i && !this.sbAppend(buf.subarray(i, end), emit)) {
            // Overflowed: the rest of this subnegotiation is discarded.
            i = end;
            this.state = at < 0 ? State.SbDiscard : State.SbDiscardIac;
            if (at >= 0) i = at + 1;
            break;
          }
          if (at < 0) return;
          this.state = State.SbIac;
          i = at + 1;
          break;
        }
        case State.SbIac: {
          const b = buf[i++]!;
          if (b === IAC) {
            this.state = State.SbData;
            if (!this.sbAppend(Buffer.of(IAC), emit)) this.state = State.SbDiscard;
          } else if (b === SE) {
            const data = this.sbParts.length === 1 ? this.sbParts[0]! : Buffer.concat(this.sbParts, this.sbLength);
            this.sbParts = [];
            this.sbLength = 0;
            this.state = State.Data;
            emit({ type: 'sub', option: this.sbOption, data });
          } else {
            this.sbParts = [];
            this.sbLength = 0;
            emit({
              type: 'error',
              code: 'bad_subnegotiation',
              message: `subnegotiation for option ${this.sbOption} ended by IAC ${b} instead of IAC SE; dropped`,
            });
            this.iacByte(b, emit);
          }
          break;
        }
        case State.SbDiscard: {
          const at = buf.indexOf(IAC, i);
          if (at < 0) return;
          this.state = State.SbDiscardIac;
          i = at + 1;
          break;
        }
        case State.SbDiscardIac: {
          const b = buf[i++]!;
          if (b === IAC) this.state = State.SbDiscard;
          else if (b === SE) this.state = State.Data;
          else this.iacByte(b, emit);
          break;
        }
      }
    }
  }

  /** Parse a chunk and return its events (convenience for tests and one-off use). */
  parse(chunk: Uint8Array): TelnetEvent[] {
    const out: TelnetEvent[] = [];
    // Data views are copied so the caller may keep them.
    this.feed(chunk, (ev) => out.push(ev.type === 'data' ? { type: 'data', data: Buffer.from(ev.data) } : ev));
    return out;
  }

  /** True while the parser is inside an IAC sequence or subnegotiation (useful for tests). */
  get midSequence(): boolean {
    return this.state !== State.Data;
  }

  private iacByte(b: number, emit: (ev: TelnetEvent) => void): void {
    switch (b) {
      case IAC:
        this.state = State.Data;
        emit({ type: 'data', data: Buffer.of(IAC) });
        return;
      case WILL:
      case WONT:
      case DO:
      case DONT:
        this.verb = b;
        this.state = State.Negotiate;
        return;
      case SB:
        this.state = State.SbOption;
        return;
      default:
        this.state = State.Data;
        emit({ type: 'command', command: b });
    }
  }

  private sbAppend(part: Buffer, emit: (ev: TelnetEvent) => void): boolean {
    if (this.sbLength + part.length > this.maxSub) {
      this.sbParts = [];
      this.sbLength = 0;
      emit({
        type: 'error',
        code: 'subnegotiation_too_long',
        message: `subnegotiation for option ${this.sbOption} exceeds ${this.maxSub} bytes; discarded`,
      });
      return false;
    }
    // Copy: the chunk may be reused by the caller once feed() returns.
    this.sbParts.push(Buffer.from(part));
    this.sbLength += part.length;
    return true;
  }
}
