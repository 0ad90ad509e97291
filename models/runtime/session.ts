/**
 * onnxruntime-node sessions with clear errors, and the mapping from input roles
 * (input_ids, attention_mask, token_type_ids) to a model's input names.
 */
import * as ort from 'onnxruntime-node';
import { readFileSync } from 'node:fs';
import { ModelError, describeError } from './errors.js';
import { INPUT_ROLES, type InputRole } from './model-dir.js';
import type { EncodedBatch } from './tokenizer.js';

export interface SessionOptions {
  /** onnxruntime intra-op threads (default: onnxruntime's choice, the number of physical cores). */
  threads?: number;
}

export function sessionOptions(opts: SessionOptions = {}): ort.InferenceSession.SessionOptions {
  return {
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
    ...(opts.threads ? { intraOpNumThreads: opts.threads, interOpNumThreads: 1 } : {}),
  };
}

/** Opens a model from a file (or bytes, labelled `label`); a bad file is a ModelError naming it. */
export async function openSession(source: string | Uint8Array, label: string, opts: SessionOptions = {}): Promise<ort.InferenceSession> {
  try {
    const bytes = typeof source === 'string' ? readFileSync(source) : source;
    return await ort.InferenceSession.create(bytes, sessionOptions(opts));
  } catch (err) {
    throw new ModelError(`${label}: cannot load the ONNX model (${describeError(err).split('\n')[0]})`);
  }
}

/**
 * Resolves which model input each role feeds. With `configured` undefined, every model input must
 * be named after a role; otherwise every configured name must exist and every model input must be fed.
 */
export function resolveInputs(
  session: ort.InferenceSession,
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

export function feedsFor(inputs: Partial<Record<InputRole, string>>, batch: EncodedBatch): Record<string, ort.Tensor> {
  const dims = [batch.batch, batch.length];
  const feeds: Record<string, ort.Tensor> = {};
  if (inputs.input_ids) feeds[inputs.input_ids] = new ort.Tensor('int64', batch.inputIds, dims);
  if (inputs.attention_mask) feeds[inputs.attention_mask] = new ort.Tensor('int64', batch.attentionMask, dims);
  if (inputs.token_type_ids) feeds[inputs.token_type_ids] = new ort.Tensor('int64', batch.tokenTypeIds, dims);
  return feeds;
}

/** Runs a session, turning runtime failures (shape or type mismatch) into a ModelError naming the file. */
export async function runSession(
  session: ort.InferenceSession,
  label: string,
  feeds: Record<string, ort.Tensor>,
  output: string,
): Promise<ort.Tensor> {
  let result: ort.InferenceSession.ReturnType;
  try {
    result = await session.run(feeds, [output]);
  } catch (err) {
    throw new ModelError(`${label}: inference failed (${describeError(err).split('\n')[0]})`);
  }
  const t = result[output];
  if (!t) throw new ModelError(`${label}: produced no output "${output}"`);
  if (t.type !== 'float32') throw new ModelError(`${label}: output "${output}" is ${t.type}, expected float32`);
  return t as ort.Tensor;
}

export { ort };
