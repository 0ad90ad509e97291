/**
 * How benchmarks print figures: a readable line by default, one JSON object a line with --json.
 * A figure is a plain record with a `bench` name; numbers are printed as measured.
 */
export interface Figure {
  bench: string;
  [key: string]: string | number | boolean;
}

export interface BenchContext {
  json: boolean;
  /** Smaller sizes, for a quick look; figures quoted in the README use the full run. */
  quick: boolean;
  report(figure: Figure): void;
}

export function makeContext(json: boolean, quick: boolean): BenchContext {
  return {
    json,
    quick,
    report(figure) {
      if (json) console.log(JSON.stringify(figure));
      else {
        const { bench, ...rest } = figure;
        console.log(`${bench.padEnd(32)} ${Object.entries(rest).map(([k, v]) => `${k}=${typeof v === 'number' ? round(v) : v}`).join('  ')}`);
      }
    },
  };
}

function round(v: number): number {
  return Math.abs(v) >= 100 ? Math.round(v) : Math.round(v * 1000) / 1000;
}

/** Percentile of a list of samples (nearest rank). */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}
