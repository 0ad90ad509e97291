/**
 * The bus (issue 15, step 1): publish/subscribe on subjects and request/reply with a timeout, between
 * lightmud processes. Two implementations, as the store has two:
 * - InProcessBus (in-process-bus.ts): one process; its parts (several servers started in one process,
 *   tests) talk through it with the same encoding and the same failures as over the network.
 * - NatsBus (nats-bus.ts): a NATS server, `--bus nats://HOST:PORT`, with the `nats` client.
 *
 * Every message is a JSON envelope with a version (envelope.ts); a message that is not valid JSON or has
 * a version this code does not know is logged and dropped, never thrown into the caller.
 *
 * The bus is not durable and never will be treated as such: a message published while nobody listens,
 * or while the bus is down, is gone (NATS JetStream acknowledges before fsync; see issue 15). Nothing
 * that must survive goes only over it: the world's actions are committed to its store as before.
 */

/** A message's content: a JSON object. */
export type BusBody = Record<string, unknown>;

/** Where the bus reports messages it dropped (pino's shape). */
export interface BusLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export interface Bus {
  readonly kind: 'in-process' | 'nats';
  /** What to call it in messages (the NATS server's address, or "in-process"). */
  readonly name: string;
  /** Connected now: publishes go out and requests can be answered. */
  readonly up: boolean;
  /** Send to every subscriber of `subject` now; nobody listening, or the bus down, and it is gone. */
  publish(subject: string, body: BusBody): void;
  /** Receive what is published on `subject`. Returns the unsubscribe function. */
  subscribe(subject: string, handler: (body: BusBody, subject: string) => void): () => void;
  /**
   * Answer requests on `subject`; a handler that throws answers with an error (the requester gets BusRemoteError).
   * Every server of a subject gets each request (the first answer is taken), except those serving it in a
   * `queue` group: one member of the group gets each request.
   */
  serve(subject: string, handler: (body: BusBody) => BusBody | Promise<BusBody>, opts?: { queue?: string }): () => void;
  /**
   * Ask whoever serves `subject`, wait at most `timeoutMs`. Rejects with BusTimeoutError, BusNoResponderError
   * (nobody serves it), BusUnavailableError (the bus is down), BusRemoteError or BusMessageError (a bad answer).
   */
  request(subject: string, body: BusBody, timeoutMs: number): Promise<BusBody>;
  /** Called with false when the bus goes down and true when it is back. Returns the unsubscribe function. */
  onStatus(listener: (up: boolean) => void): () => void;
  close(): Promise<void>;
}

export class BusTimeoutError extends Error {
  constructor(subject: string, ms: number) {
    super(`no answer on ${subject} within ${ms} ms`);
    this.name = 'BusTimeoutError';
  }
}

export class BusNoResponderError extends Error {
  constructor(subject: string) {
    super(`nobody answers on ${subject}`);
    this.name = 'BusNoResponderError';
  }
}

export class BusUnavailableError extends Error {
  constructor(bus: string) {
    super(`the bus (${bus}) is down`);
    this.name = 'BusUnavailableError';
  }
}

/** The responder's handler failed. */
export class BusRemoteError extends Error {
  constructor(subject: string, message: string) {
    super(`the answer on ${subject} is an error: ${message}`);
    this.name = 'BusRemoteError';
  }
}

/** A message that is not JSON, not an envelope, or of a version this code does not know. */
export class BusMessageError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'BusMessageError';
  }
}
