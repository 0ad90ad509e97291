import type { Command } from '../command.js';
import { parseOptions } from '../command.js';
import { loadWorld, DEFAULT_WORLD } from '../../world-io/load-world.js';
import { lintWorld } from '../../engine/world-lint.js';
import { WorldFileError } from '../../engine/world-file.js';

export const validateCommand: Command = {
  name: 'validate',
  summary: 'check a world file or directory (schema, references, map, writing conventions)',
  usage: [
    'usage: lightmud validate [--world PATH] [--lint]',
    '',
    'Loads a world (lightmud JSON file, directory of them, or a LIGHT graph-JSON map), prints its',
    'counts, and exits non-zero listing every problem with its file, entity and field.',
    '',
    '  --world PATH  world to check (default: the bundled world, world-data/default)',
    '  --lint        also enforce the bundled world\'s conventions: one connected map, 3-5 sentence',
    '                first-person personas, second-person descriptions',
  ].join('\n'),
  async run(args) {
    const { opts } = parseOptions(args, { world: 'string', lint: 'boolean' });
    const path = opts.world ?? DEFAULT_WORLD;
    try {
      const { state, format, files } = loadWorld(path);
      const counts = { rooms: 0, characters: 0, objects: 0 };
      for (const n of Object.values(state.nodes)) counts[n.kind === 'room' ? 'rooms' : n.kind === 'character' ? 'characters' : 'objects']++;
      const categories = new Set(Object.values(state.nodes).flatMap((n) => (n.kind === 'room' ? [n.category.toLowerCase()] : [])));
      console.log(`${path}: ${format} world, ${files.length} file(s): ${counts.rooms} rooms in ${categories.size} categories, ${counts.characters} characters, ${counts.objects} objects`);
      if (opts.lint) {
        const findings = lintWorld(state);
        for (const f of findings) console.log(`  ${f.entity}: ${f.message}`);
        if (findings.length) {
          console.error(`${findings.length} convention problem(s)`);
          return 1;
        }
      }
      return 0;
    } catch (err) {
      if (err instanceof WorldFileError) {
        console.error(err.message);
        return 1;
      }
      throw err;
    }
  },
};
