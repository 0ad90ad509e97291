/**
 * The bus's wire format: `{"v":1,"body":{...}}` as UTF-8 JSON, or `{"v":1,"error":"..."}` for a request
 * whose responder failed. Decoding checks the JSON, the envelope and the version; the bodies' own
 * fields are checked by whoever reads them.
 */
import { BusMessageError, BusRemoteError, type BusBody, type BusLog } from './bus.js';

export const BUS_VERSION = 1;

export type Envelope = { v: typeof BUS_VERSION; body: BusBody } | { v: typeof BUS_VERSION; error: string };

export function encode(body: BusBody): string {
  return JSON.stringify({ v: BUS_VERSION, body });
}

export function encodeError(message: string): string {
  return JSON.stringify({ v: BUS_VERSION, error: message });
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Throws BusMessageError for anything but a version-1 envelope (the text quoted, cut short, in the reason). */
export function decode(text: string): Envelope {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BusMessageError(`not JSON: ${JSON.stringify(text.slice(0, 80))}`);
  }
  if (!isObject(parsed)) throw new BusMessageError(`not an envelope (no object): ${JSON.stringify(text.slice(0, 80))}`);
  if (parsed.v !== BUS_VERSION) throw new BusMessageError(`unknown version ${JSON.stringify(parsed.v)} (this server reads version ${BUS_VERSION})`);
  if (typeof parsed.error === 'string') return { v: BUS_VERSION, error: parsed.error };
  if (!isObject(parsed.body)) throw new BusMessageError('an envelope without a body object');
  return { v: BUS_VERSION, body: parsed.body };
}

/**
 * The body of the answer to a request on `subject`: an answer that is no envelope is logged as dropped and
 * thrown (BusMessageError); the responder's own failure is thrown as BusRemoteError.
 */
export function answerBody(reply: string, subject: string, log: BusLog): BusBody {
  let env;
  try {
    env = decode(reply);
  } catch (err) {
    log.warn({ subject, err: (err as Error).message }, 'a bad answer on the bus was dropped');
    throw err;
  }
  if ('error' in env) throw new BusRemoteError(subject, env.error);
  return env.body;
}
