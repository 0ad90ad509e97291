/**
 * The other servers on the bus, as their presence messages tell of them: each says it is here at
 * start, when it hears of a server it did not know, and every heartbeat; and gone when it closes. A
 * server is a world, or one of a cluster world's portals (then the same world has several entries,
 * and this server's fellow portals are listed too).
 * A world that falls silent (killed, cut off) stays listed (who asks it, and names it as not
 * answering) until it has been silent for `forgetMs`; a world that said it is gone is listed as gone
 * for as long.
 */
import type { Presence } from './cross-world-messages.js';

export interface RosterEntry {
  world: string;
  title: string;
  /** The portal id (null: a server that does not name one). */
  portal: string | null;
  shared: boolean;
  state: 'here' | 'gone';
  /** When it last said anything (ms since the epoch). */
  heardAt: number;
}

export class WorldRoster {
  private entries = new Map<string, RosterEntry>();

  /** `self`: this server's world and portal id (its own messages are not listed). */
  constructor(private readonly self: { world: string; portal: string | null }, private readonly forgetMs: number) {}

  /** Note a presence message; true when the server is new to the roster (or back after saying it was gone). */
  heard(p: Presence, now = Date.now()): boolean {
    if (p.world === this.self.world && (p.portal === null || p.portal === this.self.portal)) return false;
    const key = `${p.world}/${p.portal ?? ''}`;
    const before = this.entries.get(key);
    this.entries.set(key, { world: p.world, title: p.title, portal: p.portal, shared: p.shared, state: p.kind, heardAt: now });
    return p.kind === 'here' && (!before || before.state === 'gone');
  }

  /** The other servers, by world and portal; those silent for longer than forgetMs are forgotten. */
  others(now = Date.now()): RosterEntry[] {
    for (const [id, e] of this.entries) if (now - e.heardAt > this.forgetMs) this.entries.delete(id);
    return [...this.entries.values()].sort((a, b) => a.world.localeCompare(b.world) || (a.portal ?? '').localeCompare(b.portal ?? ''));
  }
}
