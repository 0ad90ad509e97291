/**
 * Which player a tell line names, among the players of some worlds: "NAME message", "NAME: message",
 * "NAME, message", "NAME that message", or "NAME@WORLD message" to say which world. Names are matched
 * whole and without regard to case, the longest first ("tell old man hello" is to "old man", not
 * to "old"); several worlds with a player of that name are all returned, for the caller to ask which.
 */
export interface NamedWorld {
  world: string;
  names: string[];
}

export interface TellTarget {
  /** The name as the world has it. */
  name: string;
  /** Every world with a player of that name (one, unless the name is in several). */
  worlds: string[];
  /** The message (may be empty). */
  text: string;
}

const rest = (s: string) => s.replace(/^\s*[:,]?\s*/, '').replace(/^that\s+/i, '').trim();

export function matchTellTarget(line: string, worlds: NamedWorld[]): TellTarget | null {
  const trimmed = line.trim().replace(/^to\s+/i, '');
  const lower = trimmed.toLowerCase();
  const at = /^(\S+?)@([A-Za-z0-9][A-Za-z0-9_.-]*?)[:,]?(?:\s|$)/.exec(trimmed);
  if (at) {
    const [whole, name, world] = at as unknown as [string, string, string];
    const w = worlds.find((x) => x.world.toLowerCase() === world.toLowerCase());
    const found = w?.names.find((n) => n.toLowerCase() === name.toLowerCase());
    return w && found ? { name: found, worlds: [w.world], text: rest(trimmed.slice(whole.length)) } : null;
  }
  let best: TellTarget | null = null;
  for (const w of worlds) {
    for (const n of w.names) {
      const ln = n.toLowerCase();
      if (!lower.startsWith(ln) || !/^(?:$|[\s:,])/.test(lower.slice(ln.length))) continue;
      if (!best || ln.length > best.name.length) best = { name: n, worlds: [w.world], text: rest(trimmed.slice(ln.length)) };
      else if (ln === best.name.toLowerCase() && !best.worlds.includes(w.world)) best.worlds.push(w.world);
    }
  }
  return best;
}
