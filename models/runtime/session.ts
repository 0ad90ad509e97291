/**
 * onnxruntime sessions, run on an inference thread, with clear errors; and the mapping from input
 * roles (input_ids, attention_mask, token_type_ids) to a model's input names.
 *
 * onnxruntime-node's `run()` returns a promise but computes synchronously on the calling thread
 * (after a setImmediate), so a 20 ms inference on the main thread is a 20 ms stall of the server.
 * Sessions therefore live in one worker thread (ort-worker.mjs) by default; the main thread only
 * tokenises and posts small typed arrays. `inProcess: true` (or LIGHTMUD_ORT_IN_PROCESS=1) runs
 * them on the calling thread instead, e.g. inside a worker of your own.
 */
import * as ort from 'onnxruntime-node';
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { ModelError, describeError } from './errors.js';
import { INPUT_ROLES, type InputRole } from './model-dir.js';
import type { EncodedBatch } from './tokenizer.js';

export interface SessionOptions {
  /** onnxruntime intra-op threads (default: onnxruntime's choice, the number of physical cores). */
  threads?: number;
  /** Run on the calling thread instead of the shared inference thread. */
  inProcess?: boolean;
}

type TypedArray = Float32Array | BigInt64Array | Int32Array | Uint8Array | Int8Array | Float64Array | Uint16Array;

/** A tensor as plain data (what crosses the thread boundary; ort.Tensor has the same fields). */
export interface TensorData {
  type: string;
  data: TypedArray;
  dims: readonly number[];
}

export interface Session {
  readonly label: string;
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  run(feeds: Record<string, TensorData>, fetches: string[]): Promise<Record<string, TensorData>>;
  release(): Promise<void>;
}

export function sessionOptions(opts: SessionOptions = {}): ort.InferenceSession.SessionOptions {
  return {
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
    ...(opts.threads ? { intraOpNumThreads: opts.threads, interOpNumThreads: 1 } : {}),
  };
}

// ---- in process -------------------------------------------------------------------------------

class LocalSession implements Session {
  constructor(readonly label: string, private readonly s: ort.InferenceSession) {}
  get inputNames(): readonly string[] {
    return this.s.inputNames;
  }
  get outputNames(): readonly string[] {
    return this.s.outputNames;
  }
  async run(feeds: Record<string, TensorData>, fetches: string[]): Promise<Record<string, TensorData>> {
    const f: Record<string, ort.Tensor> = {};
    for (const [k, t] of Object.entries(feeds)) f[k] = new ort.Tensor(t.type as 'float32', t.data as Float32Array, t.dims);
    return (await this.s.run(f, fetches)) as unknown as Record<string, TensorData>;
  }
  async release(): Promise<void> {
    await this.s.release();
  }
}

// ---- on the inference thread ------------------------------------------------------------------

interface Reply {
  id: number;
  ok: boolean;
  error?: string;
  sid?: number;
  inputNames?: string[];
  outputNames?: string[];
  outputs?: Record<string, TensorData>;
  threadId?: number;
}

class InferenceThread {
  private worker: Worker | undefined;
  private nextId = 1;
  private pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();

  private start(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(new URL('./ort-worker.mjs', import.meta.url));
    w.on('message', (r: Reply) => {
      const p = this.pending.get(r.id);
      if (!p) return;
      this.pending.delete(r.id);
      if (this.pending.size === 0) w.unref();
      if (r.ok) p.resolve(r);
      else p.reject(new Error(r.error ?? 'inference thread error'));
    });
    const fail = (err: Error): void => {
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
      this.worker = undefined;
    };
    w.on('error', (err) => fail(err instanceof Error ? err : new Error(String(err))));
    w.on('exit', (code) => fail(new Error(`inference thread exited (code ${code})`)));
    w.unref();
    this.worker = w;
    return w;
  }

  call(msg: Record<string, unknown>, transfer: ArrayBuffer[] = []): Promise<Reply> {
    const w = this.start();
    const id = this.nextId++;
    // Keep the process alive while a request is outstanding; idle, the thread does not hold it open.
    if (this.pending.size === 0) w.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      w.postMessage({ ...msg, id }, transfer);
    });
  }
}

let thread: InferenceThread | undefined;

class RemoteSession implements Session {
  constructor(
    readonly label: string,
    private readonly sid: number,
    readonly inputNames: readonly string[],
    readonly outputNames: readonly string[],
  ) {}
  async run(feeds: Record<string, TensorData>, fetches: string[]): Promise<Record<string, TensorData>> {
    const plain: Record<string, TensorData> = {};
    for (const [k, t] of Object.entries(feeds)) plain[k] = { type: t.type, data: t.data, dims: [...t.dims] };
    const r = await thread!.call({ op: 'run', sid: this.sid, feeds: plain, fetches });
    return r.outputs ?? {};
  }
  async release(): Promise<void> {
    await thread!.call({ op: 'release', sid: this.sid });
  }
}

/** The thread id sessions run on by default (for checks: the main thread is 0). */
export async function inferenceThreadId(): Promise<number> {
  if (inProcessByDefault()) return (await import('node:worker_threads')).threadId;
  thread ??= new InferenceThread();
  return (await thread.call({ op: 'ping' })).threadId!;
}

function inProcessByDefault(): boolean {
  return process.env.LIGHTMUD_ORT_IN_PROCESS === '1';
}

/** Opens a model from a file (or bytes, labelled `label`); a bad file is a ModelError naming it. */
export async function openSession(source: string | Uint8Array, label: string, opts: SessionOptions = {}): Promise<Session> {
  const options = sessionOptions(opts);
  try {
    if (opts.inProcess ?? inProcessByDefault()) {
      const bytes = typeof source === 'string' ? readFileSync(source) : source;
      return new LocalSession(label, await ort.InferenceSession.create(bytes, options));
    }
    thread ??= new InferenceThread();
    let msg: Record<string, unknown>;
    const transfer: ArrayBuffer[] = [];
    if (typeof source === 'string') msg = { op: 'load', path: source, options };
    else {
      // The bytes cross to the thread: hand over our buffer when it is exactly the model, else copy.
      const whole = source.byteOffset === 0 && source.byteLength === source.buffer.byteLength && source.buffer instanceof ArrayBuffer;
      const bytes = whole ? source : source.slice();
      transfer.push(bytes.buffer as ArrayBuffer);
      msg = { op: 'load', bytes, options };
    }
    const r = await thread.call(msg, transfer);
    return new RemoteSession(label, r.sid!, r.inputNames ?? [], r.outputNames ?? []);
  } catch (err) {
    throw new ModelError(`${label}: cannot load the ONNX model (${describeError(err).split('\n')[0]})`);
  }
}

/**
 * Resolves which model input each role feeds. With `configured` undefined, every model input must
 * be named after a role; otherwise every configured name must exist and every model input must be fed.
 */
export function resolveInputs(
  session: Session,
  label: string,
  configured: Partial<Record<InputRole, string>> | undefined,
  what: string,
): Partial<Record<InputRole, string>> {
  const names = session.inputNames;
  const hint = `(its inputs: ${names.join(', ') || 'none'}; a ${what} takes ${INPUT_ROLES.join(', ')}; map other names in lightmud.json)`;
  if (configured) {
    for (const [role, name] of Object.entries(configured)) {
      if (!names.includes(name)) throw new ModelError(`${label}: has no input named "${name}" for ${role} ${hint}`);
    }
    const fed = new Set(Object.values(configured));
    const unfed = names.filter((n) => !fed.has(n));
    if (unfed.length) throw new ModelError(`${label}: input ${unfed.map((n) => `"${n}"`).join(', ')} is not fed by lightmud.json ${hint}`);
    return configured;
  }
  const map: Partial<Record<InputRole, string>> = {};
  for (const n of names) {
    if (!(INPUT_ROLES as readonly string[]).includes(n)) throw new ModelError(`${label}: unexpected input "${n}" ${hint}`);
    map[n as InputRole] = n;
  }
  if (!map.input_ids) throw new ModelError(`${label}: has no input named "input_ids" ${hint}`);
  return map;
}

export function feedsFor(inputs: Partial<Record<InputRole, string>>, batch: EncodedBatch): Record<string, TensorData> {
  const dims = [batch.batch, batch.length];
  const feeds: Record<string, TensorData> = {};
  if (inputs.input_ids) feeds[inputs.input_ids] = { type: 'int64', data: batch.inputIds, dims };
  if (inputs.attention_mask) feeds[inputs.attention_mask] = { type: 'int64', data: batch.attentionMask, dims };
  if (inputs.token_type_ids) feeds[inputs.token_type_ids] = { type: 'int64', data: batch.tokenTypeIds, dims };
  return feeds;
}

/** Runs a session, turning runtime failures (shape or type mismatch) into a ModelError naming the file. */
export async function runSession(session: Session, feeds: Record<string, TensorData>, output: string): Promise<TensorData> {
  let result: Record<string, TensorData>;
  try {
    result = await session.run(feeds, [output]);
  } catch (err) {
    throw new ModelError(`${session.label}: inference failed (${describeError(err).split('\n')[0]})`);
  }
  const t = result[output];
  if (!t) throw new ModelError(`${session.label}: produced no output "${output}"`);
  if (t.type !== 'float32') throw new ModelError(`${session.label}: output "${output}" is ${t.type}, expected float32`);
  return t;
}
