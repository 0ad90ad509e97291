/** `lightmud play` as a user runs it: a real child process reading standard input. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const BIN = new URL('../../bin/lightmud.mjs', import.meta.url).pathname;
const SIMPLE = new URL('../../../shared/light-env/maps/simple_world.json', import.meta.url).pathname;
const MAPS = new URL('../../../shared/light-env/maps/', import.meta.url).pathname;
const EMOTES = ['applaud', 'blush', 'cry', 'dance', 'frown', 'gasp', 'grin', 'groan', 'growl', 'laugh', 'nod', 'nudge', 'ponder', 'pout', 'scream', 'shrug', 'sigh', 'smile', 'stare', 'wave', 'wink', 'yawn'];
/** Replies that mean the command was not understood (as opposed to a rule's refusal with its reason). */
const NOT_UNDERSTOOD = /I don't know the word|I don't understand|What emotion|^\S+( \S+)? (what|whom)\b.*\?|Try:|Just type|Type a command/;
/** Replies that mean a name read from the map named nothing here. */
const NAME_MISSED = /You don't see any|You don't see anyone called|is a person, not a thing|is not someone you can|You only see \d/;

type LightNode = { name: string; agent?: boolean; object?: boolean; room?: boolean; contained_nodes?: Record<string, unknown>; container_node?: { target_id: string }; neighbors?: Record<string, { label: string }> } & Record<string, unknown>;

/**
 * Issue 13's commands, with names read from a LIGHT map: the character whose room holds the most
 * people and things, what is there, and who.
 */
function issueCommands(file: string): { as: string; commands: string[] } {
  const { nodes, agents } = JSON.parse(readFileSync(MAPS + file, 'utf8')) as { nodes: Record<string, LightNode>; agents: string[] };
  const parent = (id: string) => nodes[id]?.container_node?.target_id ?? '';
  const kids = (id: string) => Object.keys(nodes[id]?.contained_nodes ?? {}).filter((k) => nodes[k]);
  const flag = (id: string, f: string) => !!(nodes[id]![f] || nodes[id]![`is_${f}`]);
  const weight = (a: string) => kids(parent(a)).filter((x) => nodes[x]!.agent).length * 3 + kids(parent(a)).length + kids(a).length;
  const me = agents.filter((a) => nodes[a] && nodes[parent(a)]?.room).sort((a, b) => weight(b) - weight(a))[0]!;
  const room = parent(me);
  const name = (id: string) => nodes[id]!.name;
  const people = kids(room).filter((x) => nodes[x]!.agent && x !== me);
  const things = kids(room).filter((x) => nodes[x]!.object);
  const gettable = things.filter((o) => flag(o, 'gettable'));
  const mine = kids(me).filter((x) => nodes[x]!.object);
  const container = things.find((o) => flag(o, 'container'));
  const held = [...mine, ...gettable];
  const wearable = held.find((o) => flag(o, 'wearable'));
  const weapon = held.find((o) => flag(o, 'wieldable') || flag(o, 'weapon'));
  const food = held.find((o) => flag(o, 'food') || flag(o, 'drink'));
  const thing = gettable[0] ?? mine[0] ?? things[0];
  const exit = Object.values(nodes[room]!.neighbors ?? {})[0];
  const c: string[] = ['look', 'l', 'exits', 'look north', 'i', 'inventory', 'score', 'health', 'examine me', 'wait', 'z', 'equip', 'emote smile', 'emote laugh', 'say hello, all', 'shout hello, anyone?'];
  if (exit) c.push(`point ${exit.label}`);
  if (container) c.push(`look in ${name(container)}`, `look on ${name(container)}`);
  if (thing) c.push(`examine ${name(thing)}`, `x ${name(thing)}`, `point ${name(thing)}`);
  for (const g of gettable.slice(0, 2)) c.push(`get ${name(g)}`, `drop ${name(g)}`, `get ${name(g)}`);
  if (gettable[0] && container) c.push(`put ${name(gettable[0])} in ${name(container)}`, `get all from ${name(container)}`);
  if (wearable) c.push(`wear ${name(wearable)}`, `remove ${name(wearable)}`, `equip ${name(wearable)}`);
  if (weapon) c.push(`wield ${name(weapon)}`, `equip ${name(weapon)}`);
  if (food) c.push(`ingest ${name(food)}`);
  for (const p of people.slice(0, 4)) {
    const who = name(p);
    c.push(`examine ${who}`, `health ${who}`, `hug ${who}`, `point at ${who}`, `follow ${who}`, 'unfollow', `block ${who}`, 'unblock', `emote wave at ${who}`, `tell ${who} good day`, `whisper ${who}, a secret`);
    const theirs = kids(p).find((x) => nodes[x]!.object && !nodes[x]!.equipped);
    if (theirs) c.push(`steal ${name(theirs)} from ${who}`);
    if (thing) c.push(`use ${name(thing)} with ${who}`);
  }
  const other = people[0] ? name(people[0]) : undefined;
  for (const e of EMOTES) c.push(e, ...(other ? [`${e} ${other}`] : []));
  if (other && mine[0]) c.push(`give ${name(mine[0])} to ${other}`);
  c.push('get all', 'drop all', 'get all', 'again', '!');
  if (other) c.push(`hit ${other}`); // late: it may kill them
  c.push('n', 's');
  return { as: me, commands: c };
}

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

  const maps = existsSync(MAPS) ? readdirSync(MAPS).filter((f) => f.endsWith('.json')).sort() : [];
  it.skipIf(maps.length === 0)("understands issue 13's commands on every LIGHT map, with the map's own names", () => {
    let played = 0;
    for (const file of maps) {
      const { as, commands } = issueCommands(file);
      const r = lightmud(['play', '--world', MAPS + file, '--as', as, '--json'], commands.join('\n') + '\n');
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { input: string; ok: boolean; text: string });
      expect(lines.map((l) => l.input)).toEqual(commands);
      const missed = lines.filter((l) => !l.ok && (NOT_UNDERSTOOD.test(l.text) || NAME_MISSED.test(l.text)));
      expect(missed.map((l) => `${file}: ${l.input} -> ${l.text}`)).toEqual([]);
      expect(lines.filter((l) => l.ok).length, file).toBeGreaterThan(commands.length * 0.75);
      // the whole name is the name, commas and all ("tell Rhys, the Horse Trader good day")
      for (const l of lines.filter((l) => /^(tell|whisper) /.test(l.input))) expect(l.text, `${file}: ${l.input}`).toMatch(/, "(good day|a secret)"$/);
      played += lines.length;
    }
    expect(played).toBeGreaterThan(700);
  }, 180_000);

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
