/**
 * Against password guessing and mass registration, per account name and per address, in memory (it
 * survives reconnecting, not a restart of the server):
 *
 * - FailureBackoff: after `free` failed logins in a row for a key, each further attempt must wait
 *   base, 2 base, 4 base, ... (at most `maxMs`); attempts while waiting are refused without checking
 *   the password (no scrypt spent). A key is forgotten `forgetMs` after its last failure; a success
 *   clears an account's failures (not an address's: one good account must not reset a guesser's count).
 * - WindowCounter: events per key in a sliding window (registrations per address per hour).
 */
export class FailureBackoff {
  private entries = new Map<string, { failures: number; blockedUntil: number; last: number }>();
  private lastPrune = 0;

  constructor(private free: number, private baseMs: number, private maxMs: number, private forgetMs = 15 * 60_000) {}

  /** Milliseconds `key` must still wait before its next attempt (0: it may try now). */
  wait(key: string, now = Date.now()): number {
    if (this.free <= 0) return 0;
    const e = this.entries.get(key);
    return e ? Math.max(0, e.blockedUntil - now) : 0;
  }

  failed(key: string, now = Date.now()): void {
    if (this.free <= 0) return;
    this.prune(now);
    const e = this.entries.get(key) ?? { failures: 0, blockedUntil: 0, last: now };
    e.failures++;
    e.last = now;
    if (e.failures >= this.free) e.blockedUntil = now + Math.min(this.maxMs, this.baseMs * 2 ** Math.min(30, e.failures - this.free));
    this.entries.set(key, e);
  }

  succeeded(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  private prune(now: number): void {
    if (now - this.lastPrune < 60_000) return;
    this.lastPrune = now;
    for (const [k, e] of this.entries) if (now - e.last > this.forgetMs && now >= e.blockedUntil) this.entries.delete(k);
  }
}

export class WindowCounter {
  private events = new Map<string, number[]>();

  constructor(private max: number, private windowMs: number) {}

  /** Milliseconds until `key` may have one more event (0: now). */
  wait(key: string, now = Date.now()): number {
    if (this.max <= 0) return 0;
    const list = this.recent(key, now);
    return list.length < this.max ? 0 : list[0]! + this.windowMs - now;
  }

  add(key: string, now = Date.now()): void {
    if (this.max <= 0) return;
    const list = this.recent(key, now);
    list.push(now);
    this.events.set(key, list);
    if (this.events.size > 10_000) for (const k of this.events.keys()) if (!this.recent(k, now).length) this.events.delete(k);
  }

  private recent(key: string, now: number): number[] {
    const list = (this.events.get(key) ?? []).filter((t) => now - t < this.windowMs);
    if (list.length) this.events.set(key, list);
    else this.events.delete(key);
    return list;
  }
}

/** "12 seconds", "4 minutes". */
export function waitText(ms: number): string {
  const s = Math.ceil(ms / 1000);
  if (s < 120) return `${s} second${s === 1 ? '' : 's'}`;
  return `${Math.ceil(s / 60)} minutes`;
}

/**
 * At most `perMinute` log lines per key (an address) a minute; the rest are counted and reported in the
 * next line allowed, so a flood from one address writes a few lines of log, not megabytes.
 */
export class LogLimiter {
  private windows = new Map<string, { start: number; lines: number; suppressed: number }>();

  constructor(private perMinute = 10) {}

  /** Whether to write a line for `key` now; `suppressed`: lines left out since the last one written. */
  allow(key: string, now = Date.now()): { ok: boolean; suppressed: number } {
    let w = this.windows.get(key);
    if (!w || now - w.start >= 60_000) {
      const suppressed = w?.suppressed ?? 0;
      w = { start: now, lines: 0, suppressed: 0 };
      this.windows.set(key, w);
      if (this.windows.size > 10_000) for (const [k, v] of this.windows) if (now - v.start >= 60_000) this.windows.delete(k);
      w.lines++;
      return { ok: true, suppressed };
    }
    if (w.lines >= this.perMinute) {
      w.suppressed++;
      return { ok: false, suppressed: w.suppressed };
    }
    w.lines++;
    return { ok: true, suppressed: 0 };
  }
}
