/** `lightmud corpus` and `lightmud eval` as a new user first runs them: real child processes. */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LITTLE_WORLD } from '../fixtures/little-world.js';

const BIN = new URL('../../bin/lightmud.mjs', import.meta.url).pathname;

function lightmud(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const dir = mkdtempSync(join(tmpdir(), 'lightmud-cli-'));
const world = join(dir, 'little-world.json');
writeFileSync(world, JSON.stringify(LITTLE_WORLD));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('lightmud corpus', () => {
  it('without a sub-command lists the sub-commands and exits 0', () => {
    const r = lightmud(['corpus']);
    expect(r.code).toBe(0);
    for (const sub of ['check', 'scene', 'state', 'export']) expect(r.stdout).toMatch(new RegExp(`^  ${sub}\\b`, 'm'));
    const bad = lightmud(['corpus', 'chek']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown sub-command "chek"; the sub-commands are check, scene, state and export');
  });

  it('scene takes rooms and characters by id or by name, quoted or not', () => {
    const byId = lightmud(['corpus', 'scene', 'shed', 'gardener', 'orc', '--world', world]);
    expect(byId.code).toBe(0);
    const byName = lightmud(['corpus', 'scene', 'Tool Shed', 'GARDENER', 'orc', '--world', world]);
    expect(byName.code).toBe(0);
    expect(byName.stdout).toBe(byId.stdout);
    expect(byName.stdout).toMatch(/^Tool Shed\n/);
    expect(byName.stdout).toContain('\n== gardener\n');
    expect(byName.stdout).toContain('\n== orc\n');
    // the ghost of the shed steps out of the staged scene
    expect(byName.stdout).not.toContain('ghost');
    const unquoted = lightmud(['corpus', 'scene', 'tool', 'shed', 'gardener', 'orc', '--world', world]);
    expect(unquoted.stdout).toBe(byId.stdout);

    const unknown = lightmud(['corpus', 'scene', 'tool shed', 'cat', '--world', world]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no character has the id or name "cat"');
    const noRoom = lightmud(['corpus', 'scene', 'cellar', 'orc', '--world', world]);
    expect(noRoom.code).toBe(2);
    expect(noRoom.stderr).toContain('no room has the id or name "cellar"');
  });

  it('scene refuses a name that several rooms share, with their ids', () => {
    const twins = structuredClone(LITTLE_WORLD) as { rooms: { id: string; name: string }[] };
    twins.rooms.find((r) => r.id === 'road')!.name = 'Tool Shed';
    const file = join(dir, 'twins.json');
    writeFileSync(file, JSON.stringify(twins));
    const r = lightmud(['corpus', 'scene', 'tool shed', 'orc', '--world', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('2 rooms are called "tool shed": give one\'s id (shed, road)');
    expect(lightmud(['corpus', 'scene', 'road', 'orc', '--world', file]).code).toBe(0);
  });
});

describe('lightmud eval without data', () => {
  it('says how to get ParlAI files instead of failing', () => {
    for (const args of [['eval'], ['eval', '--task', 'dialogue']]) {
      const r = lightmud(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain('`lightmud corpus export` writes');
      expect(r.stderr).toContain('world-data/episodes/parlai/valid.dialogue.txt');
    }
    const missing = lightmud(['eval', '--task', 'action', '--data', join(dir, 'nowhere.txt'), '--baseline', 'random']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`no file ${join(dir, 'nowhere.txt')}.`);
    expect(missing.stderr).toContain('`lightmud corpus export` writes');
    expect(missing.stderr).not.toMatch(/^\s+at /m);
  });
});

describe('lightmud eval on an export of an older corpus', () => {
  it('warns that the corpus has changed since the export, and not before', () => {
    // a corpus of a few written episodes, exported, then one more episode written
    const corpus = join(dir, 'corpus');
    mkdirSync(corpus);
    copyFileSync(new URL('../../world-data/episodes/splits.json', import.meta.url).pathname, join(corpus, 'splits.json'));
    const lines = readFileSync(new URL('../../world-data/episodes/coast.jsonl', import.meta.url).pathname, 'utf8').trim().split('\n');
    writeFileSync(join(corpus, 'coast.jsonl'), lines.slice(0, 30).join('\n') + '\n');
    const out = join(corpus, 'parlai');
    const exp = lightmud(['corpus', 'export', '--data', corpus, '--out', out]);
    expect(exp.code, exp.stderr).toBe(0);
    const data = join(out, 'train.dialogue.txt');
    const fresh = lightmud(['eval', '--task', 'dialogue', '--data', data, '--baseline', 'ir']);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stderr).not.toContain('warning');
    writeFileSync(join(corpus, 'coast.jsonl'), lines.slice(0, 31).join('\n') + '\n');
    const stale = lightmud(['eval', '--task', 'dialogue', '--data', data, '--baseline', 'ir']);
    expect(stale.code).toBe(0);
    expect(stale.stderr).toContain('the corpus has changed since. Run `lightmud corpus export`');
  });
});
