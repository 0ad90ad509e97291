/** Server-side figures for /api/stats: command latency (receipt to acknowledgement) and event-loop delay. */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

/** Commands kept for the percentiles: half a minute at 2,000 commands a second. */
const WINDOW = 65536;

export interface LatencySummary {
  /** Commands acknowledged since the server started. */
  count: number;
  /** Over the last `window` commands, in milliseconds. */
  window: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  max_ms: number;
}

export class ServerStats {
  private samples = new Float64Array(WINDOW);
  private n = 0;
  /** Samples in the window since the last reset. */
  private window = 0;
  private loop: IntervalHistogram;

  constructor() {
    this.loop = monitorEventLoopDelay({ resolution: 10 });
    this.loop.enable();
  }

  /** A command was acknowledged `ms` after it arrived. */
  command(ms: number): void {
    this.samples[this.window % WINDOW] = ms;
    this.n++;
    this.window++;
  }

  commands(): LatencySummary {
    const k = Math.min(this.window, WINDOW);
    const sorted = Array.from(this.samples.subarray(0, k)).sort((a, b) => a - b);
    const at = (p: number) => (k ? sorted[Math.min(k - 1, Math.max(0, Math.ceil((p / 100) * k) - 1))]! : 0);
    return { count: this.n, window: k, p50_ms: at(50), p90_ms: at(90), p99_ms: at(99), max_ms: k ? sorted[k - 1]! : 0 };
  }

  /** Delay of the network thread's event loop since the last reset, in milliseconds. */
  eventLoop(): { p50_ms: number; p99_ms: number; max_ms: number } {
    const h = this.loop;
    return { p50_ms: h.percentile(50) / 1e6, p99_ms: h.percentile(99) / 1e6, max_ms: h.max / 1e6 };
  }

  resetEventLoop(): void {
    this.loop.reset();
  }

  /** Start the latency window afresh (the count of commands since the start is kept). */
  resetCommands(): void {
    this.samples = new Float64Array(WINDOW);
    this.window = 0;
  }

  stop(): void {
    this.loop.disable();
  }
}
