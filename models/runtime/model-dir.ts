/**
 * The model directory contract (Hugging Face layout):
 *
 *   DIR/tokenizer.json, DIR/tokenizer_config.json   the tokenizer (AutoTokenizer, local only)
 *   DIR/onnx/bi_encoder.onnx                        bi-encoder (or onnx/model.onnx, a sentence-transformers export)
 *   DIR/onnx/cross_encoder.onnx                     cross-encoder (optional; needed for --rerank)
 *   DIR/lightmud.json                               which inputs, outputs and pooling each uses (optional)
 *
 * lightmud.json (every field optional):
 *   {
 *     "format": "lightmud-model", "version": 1, "name": "...",
 *     "bi_encoder":    { "file": "onnx/bi_encoder.onnx", "inputs": ["input_ids", "attention_mask"],
 *                        "output": "sentence_embedding", "pooling": "none", "max_tokens": 128 },
 *     "cross_encoder": { "file": "onnx/cross_encoder.onnx",
 *                        "inputs": ["input_ids", "attention_mask", "token_type_ids"],
 *                        "output": "logits", "max_tokens": 256 }
 *   }
 * `inputs` may also map roles to the model's own names: {"input_ids": "ids", "attention_mask": "mask"}.
 * Left out, inputs are taken from the model, the output is `sentence_embedding` if the model has
 * one, else `last_hidden_state` with mean pooling (the sentence-transformers ONNX contract).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ModelError, describeError } from './errors.js';
import { TOKENIZER_FILES } from './tokenizer.js';

export const INPUT_ROLES = ['input_ids', 'attention_mask', 'token_type_ids'] as const;
export type InputRole = (typeof INPUT_ROLES)[number];
export type Pooling = 'none' | 'mean' | 'cls';

export interface EncoderSpec {
  /** Absolute path of the .onnx file. */
  path: string;
  /** As written in lightmud.json, relative to the model directory. */
  file: string;
  /** Role -> the model's input name; undefined: take the model's inputs as named by role. */
  inputs?: Partial<Record<InputRole, string>>;
  output?: string;
  pooling?: Pooling;
  maxTokens: number;
}

export interface ModelDirConfig {
  dir: string;
  name: string;
  /** lightmud.json's path, or undefined when the directory has none (all inferred). */
  configPath?: string;
  biEncoder: EncoderSpec;
  crossEncoder?: EncoderSpec;
}

const BI_DEFAULTS = ['onnx/bi_encoder.onnx', 'onnx/model.onnx', 'model.onnx'];
const CROSS_DEFAULTS = ['onnx/cross_encoder.onnx'];

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseEncoder(dir: string, where: string, raw: unknown, defaults: string[], defaultMax: number, required: boolean): EncoderSpec | undefined {
  if (raw !== undefined && !isObject(raw)) throw new ModelError(`${where}: must be an object`);
  const o: Json = raw ?? {};
  const known = ['file', 'inputs', 'output', 'pooling', 'max_tokens'];
  for (const k of Object.keys(o)) if (!known.includes(k)) throw new ModelError(`${where}: unknown field "${k}" (known: ${known.join(', ')})`);
  let file: string | undefined;
  if (o.file !== undefined) {
    if (typeof o.file !== 'string') throw new ModelError(`${where}.file: must be a path relative to the model directory`);
    file = o.file;
    if (!existsSync(join(dir, file))) throw new ModelError(`${join(dir, file)}: missing (named by ${where}.file)`);
  } else {
    file = defaults.find((f) => existsSync(join(dir, f)));
    if (!file) {
      if (!required) return undefined;
      throw new ModelError(`${dir}: missing ${defaults[0]} (looked for ${defaults.join(', ')}; see models/README.md)`);
    }
  }
  let inputs: EncoderSpec['inputs'];
  if (o.inputs !== undefined) {
    inputs = {};
    if (Array.isArray(o.inputs)) {
      for (const r of o.inputs) {
        if (typeof r !== 'string' || !(INPUT_ROLES as readonly string[]).includes(r)) {
          throw new ModelError(`${where}.inputs: "${String(r)}" is not one of ${INPUT_ROLES.join(', ')} (map roles to other names with an object)`);
        }
        inputs[r as InputRole] = r;
      }
    } else if (isObject(o.inputs)) {
      for (const [r, n] of Object.entries(o.inputs)) {
        if (!(INPUT_ROLES as readonly string[]).includes(r)) throw new ModelError(`${where}.inputs: "${r}" is not one of ${INPUT_ROLES.join(', ')}`);
        if (typeof n !== 'string') throw new ModelError(`${where}.inputs.${r}: must be the model's input name`);
        inputs[r as InputRole] = n;
      }
    } else throw new ModelError(`${where}.inputs: must be a list of input names or an object`);
    if (!inputs.input_ids) throw new ModelError(`${where}.inputs: must include input_ids`);
  }
  if (o.output !== undefined && typeof o.output !== 'string') throw new ModelError(`${where}.output: must be an output name`);
  if (o.pooling !== undefined && !['none', 'mean', 'cls'].includes(o.pooling as string)) {
    throw new ModelError(`${where}.pooling: must be "none", "mean" or "cls", got ${JSON.stringify(o.pooling)}`);
  }
  if (o.max_tokens !== undefined && !(Number.isInteger(o.max_tokens) && (o.max_tokens as number) >= 4)) {
    throw new ModelError(`${where}.max_tokens: must be an integer >= 4`);
  }
  return {
    path: join(dir, file),
    file,
    inputs,
    output: o.output as string | undefined,
    pooling: o.pooling as Pooling | undefined,
    maxTokens: (o.max_tokens as number | undefined) ?? defaultMax,
  };
}

/** Reads and checks a model directory's layout; does not load any model. */
export function readModelDir(dirArg: string): ModelDirConfig {
  const dir = resolve(dirArg);
  if (!existsSync(dir)) throw new ModelError(`${dir}: model directory not found`);
  for (const f of TOKENIZER_FILES) if (!existsSync(join(dir, f))) throw new ModelError(`${join(dir, f)}: missing (a model directory needs ${TOKENIZER_FILES.join(' and ')}; see models/README.md)`);
  const configPath = join(dir, 'lightmud.json');
  let cfg: Json = {};
  let hasConfig = false;
  if (existsSync(configPath)) {
    hasConfig = true;
    try {
      const parsed: unknown = JSON.parse(readFileSync(configPath, 'utf8'));
      if (!isObject(parsed)) throw new Error('must be a JSON object');
      cfg = parsed;
    } catch (err) {
      throw new ModelError(`${configPath}: ${describeError(err)}`);
    }
    if (cfg.format !== undefined && cfg.format !== 'lightmud-model') throw new ModelError(`${configPath}: format must be "lightmud-model", got ${JSON.stringify(cfg.format)}`);
    if (cfg.version !== undefined && cfg.version !== 1) throw new ModelError(`${configPath}: version ${JSON.stringify(cfg.version)} is not supported (this runtime reads version 1)`);
  }
  const biEncoder = parseEncoder(dir, `${configPath} bi_encoder`, cfg.bi_encoder, BI_DEFAULTS, 128, true)!;
  const crossEncoder = parseEncoder(dir, `${configPath} cross_encoder`, cfg.cross_encoder, CROSS_DEFAULTS, 256, cfg.cross_encoder !== undefined);
  return {
    dir,
    name: typeof cfg.name === 'string' ? cfg.name : dirArg,
    configPath: hasConfig ? configPath : undefined,
    biEncoder,
    crossEncoder,
  };
}
