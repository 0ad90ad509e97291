import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import { makeContext, type BenchContext } from './report.js';

/** A benchmark module: bench/NAME.bench.ts exporting `default async function (ctx)`. */
export type Bench = (ctx: BenchContext) => Promise<void>;

export async function runBenches(args: string[]): Promise<number> {
  const json = args.includes('--json');
  const quick = args.includes('--quick');
  const onlyAt = args.indexOf('--only');
  const only = onlyAt >= 0 ? args[onlyAt + 1] : undefined;
  const dir = dirname(fileURLToPath(import.meta.url));
  const files = readdirSync(dir).filter((f) => f.endsWith('.bench.ts')).sort();
  const ctx = makeContext(json, quick);
  let failed = 0;
  for (const file of files) {
    const name = file.replace(/\.bench\.ts$/, '');
    if (only && !name.includes(only)) continue;
    if (!json) console.log(`# ${name}`);
    try {
      const mod = (await import(pathToFileURL(join(dir, file)).href)) as { default: Bench };
      await mod.default(ctx);
    } catch (err) {
      failed++;
      console.error(`bench ${name} failed: ${err instanceof Error ? err.stack : String(err)}`);
    }
  }
  return failed ? 1 : 0;
}
