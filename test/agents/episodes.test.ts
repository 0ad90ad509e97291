/**
 * Model-vs-model episodes: reproducible for a seed (whatever the batching), every written action
 * executed by the engine, replay-verified; and `lightmud episodes` end to end as a child process
 * (JSONL, ParlAI text that the eval reader parses, SQLite, --verify).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { EMOTES } from '../../server/engine/index.js';
import { parseEpisodes } from '../../server/episodes/episode.js';
import { parseParlai } from '../../models/eval/parlai.js';
import { loadPolicy } from '../../server/agents/load.js';
import { runEpisodes, verifyEpisodes, type ModelEpisode } from '../../server/agents/episodes.js';
import type { Policy } from '../../server/agents/policy.js';
import { littleWorld } from '../fixtures/little-world.js';
import { cleanup, littleWorldTexts, makeAgentModel, tempDir, writeLittleWorld, writeUtterances } from './helpers.js';

const BIN = fileURLToPath(new URL('../../bin/lightmud.mjs', import.meta.url));

let policy: Policy;
let dir: string;
let modelDir: string;

beforeAll(async () => {
  dir = tempDir();
  modelDir = makeAgentModel(littleWorldTexts());
  copyFileSync(writeUtterances(dir), join(modelDir, 'utterances.txt'));
  ({ policy } = await loadPolicy({ modelDir, cacheDir: join(dir, 'cache'), utterances: [join(modelDir, 'utterances.txt')], thresholds: { action: 0.15, emote: 0.1 } }));
});

afterAll(async () => {
  await policy?.ranker.release();
  await policy?.pool.release();
  cleanup();
});

async function play(opts: { n: number; turns: number; seed: number; group?: number; first?: number }): Promise<ModelEpisode[]> {
  const out: ModelEpisode[] = [];
  await runEpisodes(littleWorld(), policy, { ...opts, onEpisode: (e) => void out.push(structuredClone(e)) });
  return out;
}

describe('episodes', () => {
  it('are the same for the same seed, whatever the group size, and differ for another seed', async () => {
    const a = await play({ n: 6, turns: 8, seed: 7 });
    const b = await play({ n: 6, turns: 8, seed: 7, group: 4 });
    const c = await play({ n: 6, turns: 8, seed: 8 });
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(JSON.stringify(c)).not.toBe(JSON.stringify(a));
    // The first episodes of a longer run are the episodes of a shorter one.
    const d = await play({ n: 3, turns: 8, seed: 7 });
    expect(JSON.stringify(d)).toBe(JSON.stringify(a.slice(0, 3)));
    // And a run from episode 4 on plays the same episodes as the longer run did (the jobs of `episodes work`).
    const e = await play({ n: 3, turns: 8, seed: 7, first: 3, group: 2 });
    expect(JSON.stringify(e)).toBe(JSON.stringify(a.slice(3, 6)));
  });

  it('follow LIGHT\'s setup and replay in the engine without a mismatch', async () => {
    const eps = await play({ n: 8, turns: 10, seed: 3 });
    const world = littleWorld();
    for (const ep of eps) {
      expect(ep.characters).toHaveLength(2);
      expect(ep.turns).toHaveLength(10);
      expect(ep.setting.name).toBe(world.room(ep.room)!.name);
      expect(ep.personas.map((p) => p.id)).toEqual(ep.characters);
      ep.turns.forEach((t, i) => {
        expect(t.speaker).toBe(ep.characters[i % 2]);
        expect(t.action !== undefined && t.emote !== undefined).toBe(false);
        if (t.emote) expect(EMOTES).toContain(t.emote);
      });
    }
    expect(eps.some((e) => e.turns.some((t) => t.action))).toBe(true);
    expect(verifyEpisodes(world, eps)).toEqual([]);
  });

  it('verification reports an action the engine would not execute', async () => {
    const [ep] = await play({ n: 1, turns: 4, seed: 5 });
    const bad = structuredClone(ep!);
    bad.turns[1] = { speaker: bad.turns[1]!.speaker, say: 'Watch this.', action: 'eat boulder' };
    const problems = verifyEpisodes(littleWorld(), [bad]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ episode: bad.id, turn: 1 });
  });
});

describe('lightmud episodes', () => {
  const run = (args: string[]) =>
    spawnSync(process.execPath, [BIN, 'episodes', ...args], { cwd: dir, encoding: 'utf8', env: { ...process.env, LIGHTMUD_AGENT_CACHE: join(dir, 'cache') }, timeout: 120_000 });

  it('writes the same JSONL for a seed, records it in SQLite and verifies it', () => {
    const world = writeLittleWorld(dir);
    const db = join(dir, 'episodes.db');
    const common = ['--world', world, '--model', modelDir, '--n', '5', '--turns', '6', '--seed', '4', '--db', db];
    const r1 = run([...common, '--out', join(dir, 'a.jsonl')]);
    expect(r1.stderr + r1.stdout).toMatch(/5 episodes, 30 turns .* episodes\/s/);
    expect(r1.status).toBe(0);
    const r2 = run([...common, '--out', join(dir, 'b.jsonl'), '--group', '2']);
    expect(r2.status).toBe(0);
    const a = readFileSync(join(dir, 'a.jsonl'), 'utf8');
    expect(readFileSync(join(dir, 'b.jsonl'), 'utf8')).toBe(a);
    const { episodes, errors } = parseEpisodes(a);
    expect(errors).toEqual([]);
    expect(episodes).toHaveLength(5);

    const sql = new Database(db, { readonly: true });
    const rows = sql.prepare('SELECT run, id, turns, episode FROM model_episodes ORDER BY run, id').all() as { run: string; id: string; turns: number; episode: string }[];
    sql.close();
    expect(rows).toHaveLength(10);
    expect(new Set(rows.map((r) => r.run)).size).toBe(2);
    expect(rows.slice(0, 5).map((r) => JSON.parse(r.episode))).toEqual(episodes);

    const v = run(['--verify', join(dir, 'a.jsonl'), '--world', world]);
    expect(v.stdout).toContain('verified 5 episodes (30 turns');
    expect(v.stdout).toContain('0 mismatches');
    expect(v.status).toBe(0);

    // A tampered action is reported, with the episode and turn.
    const eps = a.trim().split('\n').map((l) => JSON.parse(l) as ModelEpisode);
    eps[2]!.turns[3] = { speaker: eps[2]!.turns[3]!.speaker, say: 'Hm.', action: 'drink boulder' };
    writeFileSync(join(dir, 'bad.jsonl'), eps.map((e) => JSON.stringify(e)).join('\n') + '\n');
    const bad = run(['--verify', join(dir, 'bad.jsonl'), '--world', world]);
    expect(bad.status).toBe(1);
    expect(bad.stdout).toMatch(new RegExp(`mismatch: episode ${eps[2]!.id} turn 3: action "drink boulder" failed`));
  }, 120_000);

  it('writes ParlAI LIGHT text that the eval reader parses', () => {
    const world = writeLittleWorld(dir);
    const out = join(dir, 'p.txt');
    const r = run(['--world', world, '--model', modelDir, '--n', '3', '--turns', '6', '--seed', '9', '--no-db', '--format', 'parlai', '--out', out]);
    expect(r.status).toBe(0);
    for (const task of ['dialogue', 'action', 'emote']) {
      const file = join(dir, `p.${task}.txt`);
      expect(existsSync(file)).toBe(true);
      const examples = parseParlai(readFileSync(file, 'utf8'), file);
      if (task === 'dialogue') expect(examples).toHaveLength(18);
      for (const ex of examples) {
        expect(ex.candidates).toEqual(expect.arrayContaining(ex.labels));
        expect(ex.text).toMatch(/^_task_/);
      }
    }
  }, 120_000);

  it('refuses bad options with a clear message', () => {
    const r = run(['--n', '0', '--turns', '3', '--model', modelDir]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--n must be at least 1');
    const f = run(['--n', '1', '--turns', '3', '--model', modelDir, '--format', 'xml']);
    expect(f.stderr).toContain('--format is jsonl or parlai');
    const m = run(['--n', '1', '--turns', '3', '--model', join(dir, 'nope')]);
    expect(m.status).toBe(1);
    expect(m.stderr).toContain('no model directory');
  });
});
