import { createInterface } from 'node:readline';
import type { Command } from '../command.js';
import { intOption, parseOptions, UsageError } from '../command.js';
import { DEFAULT_WORLD, loadWorld } from '../../world-io/load-world.js';
import { World, execute, look, WorldFileError, type NodeId } from '../../engine/index.js';

/** Find a character by id or by name (exact, case-insensitive), else by unique partial name. */
export function findCharacter(world: World, who: string): NodeId {
  const q = who.trim().toLowerCase();
  const chars = world.characters();
  const byId = chars.find((c) => c.id.toLowerCase() === q);
  if (byId) return byId.id;
  const exact = chars.filter((c) => c.name.toLowerCase() === q);
  if (exact.length >= 1) return exact[0]!.id;
  const partial = chars.filter((c) => c.name.toLowerCase().includes(q));
  if (partial.length === 1) return partial[0]!.id;
  if (partial.length > 1) throw new UsageError(`"${who}" could be ${partial.slice(0, 8).map((c) => `${c.name} (${c.id})`).join(', ')}${partial.length > 8 ? ', ...' : ''}; use the id`);
  throw new UsageError(`no character called "${who}" in this world; some are: ${chars.slice(0, 8).map((c) => c.name).join(', ')}`);
}

export const playCommand: Command = {
  name: 'play',
  summary: 'play one character from standard input, one command a line',
  usage: [
    'usage: lightmud play --as NAME [--world FILE] [--json] [--seed N]',
    '',
    'Reads commands from standard input, one a line, and prints what the character perceives.',
    '',
    '  --as NAME     the character to play: its id or its name',
    '  --world FILE  a lightmud world (file or directory) or a LIGHT graph-JSON map (default: the bundled world)',
    '  --json        one JSON object per input line: {"input": "...", "ok": true|false, "text": "..."}',
    '                (ok: the command was understood and carried out)',
    '  --seed N      seed of the world\'s random state (default 1)',
    '',
    'example:',
    '  printf "look\\nget shovel\\nput shovel in muddy area\\n" | lightmud play --world map.json --as kitty',
  ].join('\n'),
  async run(args) {
    const { opts } = parseOptions(args, { world: 'string', as: 'string', json: 'boolean', seed: 'string' });
    if (!opts.as) throw new UsageError('--as NAME is required');
    let world: World;
    try {
      world = new World(loadWorld(opts.world ?? DEFAULT_WORLD, { seed: intOption(opts.seed, 'seed', 1) }).state);
    } catch (err) {
      if (err instanceof WorldFileError) {
        console.error(err.message);
        return 1;
      }
      throw err;
    }
    const me = findCharacter(world, opts.as);
    const interactive = process.stdin.isTTY && !opts.json;
    if (!opts.json) console.log(look(world, me));
    const rl = createInterface({ input: process.stdin, terminal: false, crlfDelay: Infinity });
    if (interactive) process.stdout.write('> ');
    for await (const line of rl) {
      const outcome = execute(world, me, line);
      if (opts.json) console.log(JSON.stringify({ input: line, ok: outcome.ok, text: outcome.text }));
      else console.log(outcome.text);
      if (interactive) process.stdout.write('> ');
    }
    return 0;
  },
};
