/**
 * A shard's memory of the commands it ran lately, by (portal, request id): a portal that sends a command
 * again (its answer was lost, or late) gets the answer of the first run, which it may still be waiting
 * for, and the command is not run twice. The oldest are forgotten beyond `capacity`; a portal resends
 * within seconds, long before.
 */
export class RecentResults<T> {
  private results = new Map<string, Promise<T>>();

  constructor(private readonly capacity = 10_000) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`RecentResults keeps at least 1 result, not ${capacity}`);
  }

  /** The result of (portal, id): remembered, or `run()` now (once), remembered from now on. */
  once(portal: string, id: number, run: () => Promise<T>): { result: Promise<T>; repeated: boolean } {
    const key = `${portal}\u0000${id}`;
    const known = this.results.get(key);
    if (known) return { result: known, repeated: true };
    const result = run();
    this.results.set(key, result);
    while (this.results.size > this.capacity) this.results.delete(this.results.keys().next().value!);
    return { result, repeated: false };
  }

  /** Whether (portal, id) was run here. */
  has(portal: string, id: number): boolean {
    return this.results.has(`${portal}\u0000${id}`);
  }

  get size(): number {
    return this.results.size;
  }
}
