/** Server-side figures for /api/stats: command latency (receipt to acknowledgement) and event-loop delay. */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

const WINDOW = 8192;

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
  private loop: IntervalHistogram;

  constructor() {
    this.loop = monitorEventLoopDelay({ resolution: 10 });
    this.loop.enable();
  }

  /** A command was acknowledged `ms` after it arrived. */
  command(ms: number): void {
    this.samples[this.n % WINDOW] = ms;
    this.n++;
  }

  commands(): LatencySummary {
    const k = Math.min(this.n, WINDOW);
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

  stop(): void {
    this.loop.disable();
  }
}
