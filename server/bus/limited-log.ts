/**
 * A bus log that cannot be flooded: whoever can publish on the bus can publish garbage, and each bad
 * message is worth one warning, not one line of log per message (a flood of them had no limit). Up to
 * `burst` warnings at once, then `perMinute` a minute; the ones held back are counted and said in the
 * next warning that goes out ("12 more bus warnings were held back"). Info lines pass as they are.
 */
import type { BusLog } from './bus.js';

export interface LimitOptions {
  burst?: number;
  perMinute?: number;
  /** The clock, in ms (tests). */
  now?: () => number;
}

export function limitedLog(log: BusLog, opts: LimitOptions = {}): BusLog {
  const burst = opts.burst ?? 10;
  const perMs = (opts.perMinute ?? 60) / 60_000;
  const now = opts.now ?? (() => performance.now());
  let tokens = burst;
  let at = now();
  let held = 0;
  return {
    info: (obj, msg) => log.info(obj, msg),
    warn(obj, msg) {
      const t = now();
      tokens = Math.min(burst, tokens + (t - at) * perMs);
      at = t;
      if (tokens < 1) {
        held++;
        return;
      }
      tokens -= 1;
      if (held) {
        log.warn({ held }, `${held} more bus warning${held === 1 ? ' was' : 's were'} held back`);
        held = 0;
      }
      log.warn(obj, msg);
    },
  };
}
