/** `lightmud play` as a user runs it: a real child process reading standard input. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const BIN = new URL('../../bin/lightmud.mjs', import.meta.url).pathname;
const SIMPLE = new URL('../../../shared/light-env/maps/simple_world.json', import.meta.url).pathname;

function lightmud(args: string[], input = '') {
  const r = spawnSync(process.execPath, [BIN, ...args], { input, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('lightmud play', () => {
  it.skipIf(!existsSync(SIMPLE))('plays the kitty on LIGHT\'s simple world as the action table says', () => {
    const session = [
      ['get shovel', true, 'You get the shovel.'],
      ['put shovel in muddy area', true, 'You put the shovel in the muddy area.'],
      ['get shovel from muddy area', true, 'You get the shovel from the muddy area.'],
      ['wield shovel', true, 'You wield the shovel.'],
      ['wear shovel', false, 'You are wielding the shovel; remove it first.'],
      ['remove shovel', true, 'You remove the shovel.'],
      ['wear shovel', false, "You can't wear the shovel."],
      ['eat scroll', false, "You aren't carrying the mortem scroll."],
      ['go to the orc cave', true, /^You take the path to the west\.\nOrc cave\n/],
      ['steal priceless piece of art from orc', true, 'You steal the priceless piece of art from the orc.'],
      ['hug orc', true, 'You hug the orc.'],
      ['dance', true, 'You dance.'],
      ['inventory', true, 'You are carrying a shovel and a priceless piece of art.'],
      ['fly to the moon', false, /I don't know the word "fly"/],
    ] as const;
    const r = lightmud(['play', '--world', SIMPLE, '--as', 'kitty', '--json'], session.map((s) => s[0]).join('\n') + '\n');
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { input: string; ok: boolean; text: string });
    expect(lines).toHaveLength(session.length);
    session.forEach(([input, ok, text], i) => {
      expect(lines[i]!.input).toBe(input);
      expect(lines[i]!.ok, input).toBe(ok);
      if (typeof text === 'string') expect(lines[i]!.text).toBe(text);
      else expect(lines[i]!.text).toMatch(text);
    });
  });

  it('prints the room first and then plain text without --json', () => {
    const r = lightmud(['play', '--world', SIMPLE, '--as', 'orc'], 'look\n');
    if (!existsSync(SIMPLE)) return;
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Orc cave\n/);
  });

  it('exits non-zero with a clear message for a bad world file or an unknown character', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lightmud-cli-'));
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"format": "lightmud-world", "version": 1, "rooms": [{"id": "x"}]');
    const r = lightmud(['play', '--world', bad, '--as', 'kitty'], '');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/bad\.json: \(file\): \(json\): not valid JSON/);
    const missing = lightmud(['play', '--world', join(dir, 'nope.json'), '--as', 'kitty'], '');
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/no such file/);
    if (existsSync(SIMPLE)) {
      const who = lightmud(['play', '--world', SIMPLE, '--as', 'dragon'], '');
      expect(who.code).toBe(2);
      expect(who.stderr).toMatch(/no character called "dragon"/);
    }
  });

  it('has --help for every command', () => {
    const top = lightmud(['--help']);
    expect(top.code).toBe(0);
    const names = [...top.stdout.matchAll(/^ {2}(\S+) {2,}/gm)].map((m) => m[1]!);
    expect(names).toContain('play');
    expect(names.length).toBeGreaterThanOrEqual(12);
    for (const name of names) {
      const r = lightmud([name, '--help']);
      expect(r.code, name).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`usage: lightmud ${name}`));
      expect(r.stderr, name).toBe('');
    }
    // --help anywhere on the line, after a sub-command or other options, prints the help and runs nothing.
    for (const args of [['-h'], ['help'], ['corpus', '-h'], ['corpus', 'scene', '--help'], ['eval', '--task', 'dialogue', '--help'], ['serve', '--http-port', '1', '--help']]) {
      const r = lightmud(args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout, args.join(' ')).toMatch(/usage: lightmud/);
    }
    expect(lightmud(['nonsense']).code).toBe(2);
    expect(lightmud(['play', '--bogus']).code).toBe(2);
  }, 120_000);
});
