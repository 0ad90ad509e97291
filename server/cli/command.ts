/** One `lightmud` sub-command: its name, a one-line summary, its --help text and its runner. */
export interface Command {
  name: string;
  summary: string;
  usage: string;
  /** Returns the process exit code. */
  run(args: string[]): Promise<number>;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * A small, strict option parser: `--name value`, `--name=value`, boolean `--flag`.
 * Unknown options are an error, so typos never pass silently.
 */
export function parseOptions<S extends Record<string, 'string' | 'boolean'>>(
  args: string[],
  spec: S,
): { opts: { [K in keyof S]?: S[K] extends 'boolean' ? boolean : string }; rest: string[] } {
  const opts: Record<string, string | boolean> = {};
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('--') || a === '--') {
      rest.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = a.slice(2, eq < 0 ? undefined : eq);
    const kind = spec[name];
    if (!kind) throw new UsageError(`unknown option --${name}`);
    if (kind === 'boolean') {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      opts[name] = true;
    } else {
      const value = eq >= 0 ? a.slice(eq + 1) : args[++i];
      if (value === undefined || (eq < 0 && value.startsWith('--'))) throw new UsageError(`--${name} needs a value`);
      opts[name] = value;
    }
  }
  return { opts: opts as never, rest };
}

export function intOption(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n)) throw new UsageError(`--${name} must be an integer, got "${value}"`);
  return n;
}
