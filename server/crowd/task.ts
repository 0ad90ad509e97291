/**
 * A crowdsourcing task file (JSON): which world and where, who the workers play, how long an
 * episode is and how it is paced, what the workers are told they earn, and how the pairing queue
 * behaves. Validated with a JSON Schema (ajv); every problem names the field.
 *
 *   {
 *     "id": "garden-chat", "title": "Chat in the garden", "world": "world.json",
 *     "locations": ["garden", "shed"], "personas": ["kitty", "orc", "gardener"],
 *     "turns": 4, "turnSeconds": 120, "warningSeconds": 30, "reward": "$1.00 for about 5 minutes",
 *     "maxConcurrentPairs": 10, "maxUnitsPerWorker": 3, "modelFallbackSeconds": 120,
 *     "partnerDrop": "replace_with_model", "partnerDropSeconds": 60
 *   }
 */
import { Ajv, type ErrorObject } from 'ajv';
import type { GoldScene } from './gold.js';
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';

export type PartnerDropPolicy = 'replace_with_model' | 'end_and_credit';

export interface CrowdChecks {
  /** Fewest words in an utterance (default 3). */
  minWords: number;
  /** Refuse a line written all in capitals (default true). */
  noAllCaps: boolean;
  /** Refuse a line the worker already said in this episode (default true). */
  noRepeats: boolean;
  /** Refuse a line whose word 3-grams overlap the worker's persona by more than this Jaccard (default 0.3). */
  personaCopyJaccard: number;
  /** Extra words the safety filter refuses (added to the built-in list). */
  blockedWords: string[];
}

export interface CrowdTask {
  /** Letters, digits, '-' and '_'; the worker link is /crowd/ID. */
  id: string;
  title: string;
  /** The world the task is set in: a path (relative to the task file) or a world directory; must be the served world. */
  world: string;
  /** Room ids episodes are placed in. */
  locations: string[];
  /** Character ids workers (and model partners) play. */
  personas: string[];
  /** Turns per episode, both partners together (alternating). */
  turns: number;
  /** Seconds a worker has for a turn; then the turn passes to the partner. */
  turnSeconds: number;
  /** Seconds before the end of a turn at which the worker is warned. */
  warningSeconds: number;
  /** What the worker is told they earn. */
  reward: string;
  /** The pay of one approved or soft-rejected unit (for `lightmud crowd pay`); absent: the first amount with a currency in `reward`. */
  rewardAmount?: number;
  /** Episodes running at once. */
  maxConcurrentPairs: number;
  /** Units (episodes) one worker may do in this task. */
  maxUnitsPerWorker: number;
  /** A worker waiting this long is paired with a model character (0: at once; null: never). */
  modelFallbackSeconds: number | null;
  /** What happens when a partner is gone longer than partnerDropSeconds. */
  partnerDrop: PartnerDropPolicy;
  partnerDropSeconds: number;
  /**
   * Each pair plays in a world of its own, cloned from the task's world (issue 15, crowds at scale): only on a
   * portal started with --on-demand, whose shards' world file is the task's world. Locations then never clash.
   */
  worldPerPair?: boolean;
  /** Instructions shown above the chat. */
  instructions: string;
  checks: CrowdChecks;
  /** Platform worker ids admitted (none: everyone); stored as pseudonyms, never as given. */
  allowWorkers?: string[];
  /** Shown before a worker's first unit: a text and one question; a wrong answer ends the task for that worker. */
  onboarding?: Onboarding;
  /** Scenes with one right action, served in place of the worker's 1st, 3rd, 7th, ... unit and checked (gold.ts). */
  gold?: GoldScene[];
}

export interface Onboarding {
  text: string;
  question: string;
  choices: string[];
  /** Index of the right choice. */
  answer: number;
}

export const DEFAULT_CHECKS: CrowdChecks = { minWords: 3, noAllCaps: true, noRepeats: true, personaCopyJaccard: 0.3, blockedWords: [] };

export const TASK_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'world', 'locations', 'personas', 'turns', 'turnSeconds', 'warningSeconds', 'reward', 'maxConcurrentPairs', 'maxUnitsPerWorker', 'modelFallbackSeconds', 'partnerDrop'],
  properties: {
    $schema: { type: 'string' },
    id: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$' },
    title: { type: 'string', maxLength: 200 },
    world: { type: 'string', minLength: 1 },
    locations: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', minLength: 1 } },
    personas: { type: 'array', minItems: 2, uniqueItems: true, items: { type: 'string', minLength: 1 } },
    turns: { type: 'integer', minimum: 2, maximum: 200 },
    turnSeconds: { type: 'number', exclusiveMinimum: 0, maximum: 3600 },
    warningSeconds: { type: 'number', minimum: 0 },
    reward: { type: 'string', minLength: 1, maxLength: 500 },
    rewardAmount: { type: 'number', minimum: 0, maximum: 100000 },
    maxConcurrentPairs: { type: 'integer', minimum: 1 },
    maxUnitsPerWorker: { type: 'integer', minimum: 1 },
    modelFallbackSeconds: { type: ['number', 'null'], minimum: 0 },
    partnerDrop: { enum: ['replace_with_model', 'end_and_credit'] },
    partnerDropSeconds: { type: 'number', exclusiveMinimum: 0 },
    worldPerPair: { type: 'boolean' },
    instructions: { type: 'string', maxLength: 5000 },
    allowWorkers: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 200 } },
    onboarding: {
      type: 'object',
      additionalProperties: false,
      required: ['text', 'question', 'choices', 'answer'],
      properties: {
        text: { type: 'string', minLength: 1, maxLength: 5000 },
        question: { type: 'string', minLength: 1, maxLength: 1000 },
        choices: { type: 'array', minItems: 2, maxItems: 8, items: { type: 'string', minLength: 1, maxLength: 500 } },
        answer: { type: 'integer', minimum: 0 },
      },
    },
    gold: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'location', 'persona', 'partner', 'say', 'answer'],
        properties: {
          id: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$' },
          location: { type: 'string', minLength: 1 },
          persona: { type: 'string', minLength: 1 },
          partner: { type: 'string', minLength: 1 },
          say: { type: 'string', minLength: 1, maxLength: 1000 },
          answer: { type: 'string', minLength: 1, maxLength: 200 },
        },
      },
    },
    checks: {
      type: 'object',
      additionalProperties: false,
      properties: {
        minWords: { type: 'integer', minimum: 0 },
        noAllCaps: { type: 'boolean' },
        noRepeats: { type: 'boolean' },
        personaCopyJaccard: { type: 'number', minimum: 0, maximum: 1 },
        blockedWords: { type: 'array', items: { type: 'string', minLength: 1 } },
      },
    },
  },
} as const;

export class TaskError extends Error {
  constructor(readonly file: string, readonly field: string, message: string) {
    super(`${file}: ${field ? `${field}: ` : ''}${message}`);
    this.name = 'TaskError';
  }
}

const ajv = new Ajv({ allErrors: false, strict: true });
const validateSchema = ajv.compile(TASK_SCHEMA);

function fieldOf(e: ErrorObject): string {
  const path = e.instancePath.replace(/^\//, '').replace(/\/(\d+)/g, '[$1]').replace(/\//g, '.');
  if (e.keyword === 'required') return [path, (e.params as { missingProperty: string }).missingProperty].filter(Boolean).join('.');
  if (e.keyword === 'additionalProperties') return [path, (e.params as { additionalProperty: string }).additionalProperty].filter(Boolean).join('.');
  return path || '(task)';
}

function messageOf(e: ErrorObject): string {
  if (e.keyword === 'required') return 'is required';
  if (e.keyword === 'additionalProperties') return 'is not a task field (known: ' + Object.keys(TASK_SCHEMA.properties).filter((k) => k !== '$schema').join(', ') + ')';
  if (e.keyword === 'enum') return `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  return e.message ?? 'is not valid';
}

/** Check a parsed task file; throws TaskError naming the field. Fills the defaults. */
export function validateTask(data: unknown, file = '(task)'): CrowdTask {
  if (!validateSchema(data)) {
    const e = validateSchema.errors![0]!;
    throw new TaskError(file, fieldOf(e), messageOf(e));
  }
  const d = data as Record<string, unknown> & Partial<CrowdTask>;
  if (d.warningSeconds! >= d.turnSeconds!) throw new TaskError(file, 'warningSeconds', `must be less than turnSeconds (${d.turnSeconds})`);
  d.gold?.forEach((g, i) => {
    if (g.persona === g.partner) throw new TaskError(file, `gold[${i}].partner`, 'must be another character than the persona');
    if (d.gold!.findIndex((o) => o.id === g.id) !== i) throw new TaskError(file, `gold[${i}].id`, `"${g.id}" is used twice`);
  });
  if (d.onboarding && d.onboarding.answer >= d.onboarding.choices.length) throw new TaskError(file, 'onboarding.answer', `must be the index of one of the ${d.onboarding.choices.length} choices (0-${d.onboarding.choices.length - 1})`);
  const { $schema: _schema, ...rest } = d;
  return {
    ...(rest as Omit<CrowdTask, 'title' | 'instructions' | 'checks' | 'partnerDropSeconds'>),
    title: d.title ?? d.id!,
    instructions: d.instructions ?? 'Play your character. Take turns with your partner: each turn say one line, and you may also do one action or one emote.',
    partnerDropSeconds: d.partnerDropSeconds ?? 60,
    checks: { ...DEFAULT_CHECKS, ...(d.checks ?? {}) },
  };
}

/** Read and validate a task file; `world` is resolved against the file's folder. */
export function readTaskFile(file: string): CrowdTask {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new TaskError(file, '', `cannot read: ${(err as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new TaskError(file, '', `not valid JSON: ${(err as Error).message}`);
  }
  const task = validateTask(data, file);
  return { ...task, world: resolveWorldPath(task.world, dirname(resolve(file))) };
}

/** A world path relative to `base` (each of a comma-separated list). */
export function resolveWorldPath(world: string, base: string): string {
  return world.split(',').map((p) => (isAbsolute(p) ? p : resolve(base, p))).join(',');
}

/** The locations and personas must exist in the world: rooms and characters. */
export function checkTaskAgainstWorld(task: CrowdTask, rooms: Set<string>, characters: Set<string>, file = task.id): void {
  task.locations.forEach((l, i) => {
    if (!rooms.has(l)) throw new TaskError(file, `locations[${i}]`, `"${l}" is not a room of the world ${task.world}`);
  });
  task.personas.forEach((p, i) => {
    if (!characters.has(p)) throw new TaskError(file, `personas[${i}]`, `"${p}" is not a character of the world ${task.world}`);
  });
  task.gold?.forEach((g, i) => {
    if (!rooms.has(g.location)) throw new TaskError(file, `gold[${i}].location`, `"${g.location}" is not a room of the world ${task.world}`);
    for (const k of ['persona', 'partner'] as const) if (!characters.has(g[k])) throw new TaskError(file, `gold[${i}].${k}`, `"${g[k]}" is not a character of the world ${task.world}`);
  });
}
