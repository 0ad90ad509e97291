/** One line of `who` per player, the same for this world's players and for another world's (over the bus). */
export interface WhoLineEntry {
  name: string;
  account: string | null;
  role: string;
  transport: 'websocket' | 'telnet' | null;
  connected: boolean;
}

export function whoLine(w: WhoLineEntry): string {
  return `  ${w.name.padEnd(20)} ${(w.account ?? 'guest').padEnd(16)} ${w.connected ? w.transport : 'link-dead'}${w.role === 'admin' ? ' (admin)' : ''}`;
}
