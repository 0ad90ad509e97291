import { UsageError } from './command.js';
import { commands } from './commands/index.js';

function overview(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'lightmud: a multiplayer text MUD in the style of LIGHT',
    '',
    'usage: lightmud <command> [options]     (lightmud <command> --help for details)',
    '',
    'commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
  ].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(overview());
    return name ? 0 : 1;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    console.error(`lightmud: unknown command "${name}"\n\n${overview()}`);
    return 2;
  }
  if (args.includes('--help') || args.includes('-h')) {
    console.log(command.usage);
    return 0;
  }
  try {
    return await command.run(args);
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`lightmud ${name}: ${err.message}\n\n${command.usage}`);
      return 2;
    }
    console.error(`lightmud ${name}: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}
