/**
 * A small scripted lightmud player over the websocket protocol (server/net/protocol.ts), meant to
 * be copied: it logs in as a guest, then every turn reads its `state` frame, picks one of the
 * character's valid actions (or looks, talks, or walks), sends it, and prints what it perceives.
 * To drive a character with a model, replace `choose()`.
 *
 *   npx tsx clients/agent-example.ts [ws://localhost:3000/ws] [--character NAME] [--turns N] [--delay MS]
 */
import { pathToFileURL } from 'node:url';
import WebSocket from 'ws';
import type { ClientFrame, ObservationFrame, ServerFrame, StateFrame } from '../server/net/protocol.js';

export interface AgentOptions {
  url: string;
  /** Character id or name; the first free one when absent. */
  character?: string;
  turns: number;
  /** Pause between turns (the server allows a few commands a second). */
  delayMs: number;
  log?: (line: string) => void;
}

/** The policy: what to do next, given the current state and what happened lately. */
export function choose(state: StateFrame, heard: string[]): string {
  const r = Math.random();
  if (heard.length && r < 0.2) return `say I heard that: ${heard[heard.length - 1]!.slice(0, 60)}`;
  if (r < 0.3 && state.room.exits.length) return `go ${state.room.exits[Math.floor(Math.random() * state.room.exits.length)]!.label}`;
  if (r < 0.4) return 'look';
  const actions = state.validActions;
  return actions.length ? actions[Math.floor(Math.random() * actions.length)]! : 'look';
}

/** Play `turns` turns; resolves with the commands sent. */
export async function runAgent(opts: AgentOptions): Promise<string[]> {
  const log = opts.log ?? ((line: string) => console.log(line));
  const ws = new WebSocket(opts.url);
  const send = (frame: ClientFrame) => ws.send(JSON.stringify(frame));
  const queue: ServerFrame[] = [];
  let wake: (() => void) | null = null;
  ws.on('message', (data) => {
    queue.push(JSON.parse(String(data)) as ServerFrame);
    wake?.();
  });
  const closed = new Promise<void>((resolve) => ws.on('close', () => {
    wake?.();
    resolve();
  }));
  /** The next frame satisfying `match`; observations of others' actions met on the way are printed and remembered. */
  const heard: string[] = [];
  const next = async <T extends ServerFrame>(match: (f: ServerFrame) => boolean): Promise<T> => {
    for (;;) {
      const f = queue.shift();
      if (f) {
        if (f.type === 'observation' && f.kind === 'event') {
          log(`  (${f.text})`);
          heard.push(f.text);
        }
        if (f.type === 'error' && !match(f)) log(`  [error ${f.code}] ${f.message}`);
        if (match(f)) return f as T;
        continue;
      }
      if (ws.readyState === ws.CLOSED) throw new Error('the server closed the connection');
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };

  await next((f) => f.type === 'hello');
  send(opts.character ? { type: 'login', guest: true, character: opts.character } : { type: 'login', guest: true });
  const first = await next((f) => f.type === 'characters' || f.type === 'welcome' || f.type === 'error');
  if (first.type === 'error') throw new Error(`login refused: ${first.message}`);
  if (first.type === 'characters') {
    const pick = first.characters[0];
    if (!pick) throw new Error('every character is taken');
    send({ type: 'choose', character: pick.id });
    await next((f) => f.type === 'welcome');
  }
  const look = await next<ObservationFrame>((f) => f.type === 'observation' && f.kind === 'look');
  log(look.text);
  let state = await next<StateFrame>((f) => f.type === 'state');
  log(`[playing ${state.character.name} in ${state.room.name}]`);

  const sent: string[] = [];
  for (let turn = 1; turn <= opts.turns; turn++) {
    if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
    const text = choose(state, heard.splice(0));
    sent.push(text);
    log(`> ${text}`);
    const id = `t${turn}`;
    send({ type: 'command', text, id });
    const result = await next<ObservationFrame>((f) => (f.type === 'observation' || f.type === 'error') && 'id' in f && f.id === id);
    if (result.type === 'observation') log(result.text);
    state = await next<StateFrame>((f) => f.type === 'state' && f.id === id).catch(() => state);
  }
  send({ type: 'quit' });
  await closed;
  return sent;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const opt = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args.splice(i, 2)[1] : undefined;
  };
  const character = opt('character');
  const turns = Number(opt('turns') ?? 20);
  const delayMs = Number(opt('delay') ?? 1000);
  const url = args[0] ?? 'ws://localhost:3000/ws';
  runAgent({ url, character, turns, delayMs }).catch((err: unknown) => {
    console.error(`agent: ${(err as Error).message}`);
    process.exitCode = 1;
  });
}
