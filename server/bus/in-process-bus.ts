/** Responders that serve their subject in a queue group. */
const queued = new WeakSet<Responder>();

/**
 * The bus inside one process: several servers started in one process (and the tests) share one.
 * Messages are encoded and decoded exactly as over NATS, and delivered on a later turn of the event
 * loop, never inside publish(): what works here works over the network, and a bad message is dropped
 * here as it is there. Subjects are matched exactly (no wildcards).
 */
import { BusMessageError, BusNoResponderError, BusTimeoutError, BusUnavailableError, type Bus, type BusBody, type BusLog } from './bus.js';
import { answerBody, decode, encode, encodeError } from './envelope.js';
import { limitedLog } from './limited-log.js';

type Raw = (text: string) => void;
type Responder = (text: string) => Promise<string>;

const quiet: BusLog = { warn() {}, info() {} };

export class InProcessBus implements Bus {
  readonly kind = 'in-process' as const;
  readonly name = 'in-process';
  private subscribers = new Map<string, Set<Raw>>();
  private responders = new Map<string, Responder[]>();
  private closed = false;

  private log: BusLog;

  constructor(log: BusLog = quiet) {
    this.log = limitedLog(log);
  }

  get up(): boolean {
    return !this.closed;
  }

  publish(subject: string, body: BusBody): void {
    this.deliver(subject, encode(body));
  }

  /** Put text on the bus as it arrived from the wire, valid or not (what a foreign or broken publisher sends). */
  deliver(subject: string, text: string): void {
    if (this.closed) return;
    for (const s of this.subscribers.get(subject) ?? []) setImmediate(() => s(text));
  }

  subscribe(subject: string, handler: (body: BusBody, subject: string) => void): () => void {
    const raw: Raw = (text) => {
      let env;
      try {
        env = decode(text);
      } catch (err) {
        return this.log.warn({ subject, err: (err as Error).message }, 'a bad message on the bus was dropped');
      }
      if ('error' in env) return this.log.warn({ subject, err: env.error }, 'an error envelope published on the bus was dropped');
      handler(env.body, subject);
    };
    const set = this.subscribers.get(subject) ?? new Set<Raw>();
    set.add(raw);
    this.subscribers.set(subject, set);
    return () => set.delete(raw);
  }

  serve(subject: string, handler: (body: BusBody) => BusBody | Promise<BusBody>, opts: { queue?: string } = {}): () => void {
    const responder: Responder = async (text) => {
      const env = decode(text);
      if ('error' in env) throw new BusMessageError('a request carried an error envelope');
      try {
        return encode(await handler(env.body));
      } catch (err) {
        return encodeError((err as Error).message);
      }
    };
    if (opts.queue) queued.add(responder);
    const list = this.responders.get(subject) ?? [];
    list.push(responder);
    this.responders.set(subject, list);
    return () => {
      const i = list.indexOf(responder);
      if (i >= 0) list.splice(i, 1);
    };
  }

  request(subject: string, body: BusBody, timeoutMs: number): Promise<BusBody> {
    return this.requestText(subject, encode(body), timeoutMs);
  }

  /** A request whose text is sent as given (valid or not). */
  async requestText(subject: string, text: string, timeoutMs: number): Promise<BusBody> {
    if (this.closed) throw new BusUnavailableError(this.name);
    const list = this.responders.get(subject);
    const responder = list?.[0];
    if (!responder) throw new BusNoResponderError(subject);
    // One process, so the first server answers; members of a queue group take turns (the one asked goes to the back).
    if (queued.has(responder) && list.length > 1) list.push(list.shift()!);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new BusTimeoutError(subject, timeoutMs)), timeoutMs);
    });
    const answer = new Promise<string>((resolve, reject) => setImmediate(() => responder(text).then(resolve, reject)));
    let reply: string;
    try {
      reply = await Promise.race([answer, timeout]);
    } catch (err) {
      // A request the responder cannot read is dropped there: the requester hears nothing, and times out.
      if (err instanceof BusMessageError) {
        this.log.warn({ subject, err: err.message }, 'a bad request on the bus was dropped');
        return timeout;
      }
      clearTimeout(timer);
      throw err;
    }
    clearTimeout(timer);
    return answerBody(reply, subject, this.log);
  }

  onStatus(_listener: (up: boolean) => void): () => void {
    // One process: the bus is up until it is closed.
    return () => {};
  }

  async close(): Promise<void> {
    this.closed = true;
    this.subscribers.clear();
    this.responders.clear();
  }
}
