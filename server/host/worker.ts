/**
 * The game host's thread. The network side (main thread) keeps every socket; this thread owns the
 * World and the database's world tables. Restarting it (an admin `@reload`, or a crash) reloads the
 * game code from disk and the state from the database while every player stays connected.
 */
import { parentPort, threadId } from 'node:worker_threads';
import { GameHost } from './game-host.js';
import type { HostRequest, WorkerMessage } from './types.js';

const port = parentPort;
if (!port) throw new Error('server/host/worker.ts runs as a worker thread (see server/host/host.ts)');

let host: GameHost | null = null;

function need(): GameHost {
  if (!host) throw new Error('the game host is not open');
  return host;
}

function handle(req: HostRequest): unknown {
  switch (req.op) {
    case 'open': {
      host?.close();
      host = GameHost.open(req.config);
      for (const id of req.watch) host.watched.add(id);
      return { ...host.info, thread: threadId };
    }
    case 'submit': return need().submit(req.actor, req.text, req.account);
    case 'state': return need().state(req.actor);
    case 'look': return need().look(req.actor);
    case 'characters': return need().characters();
    case 'summary': return need().summary();
    case 'watch': {
      if (req.on) need().watched.add(req.actor);
      else need().watched.delete(req.actor);
      return null;
    }
    case 'admin': return need().admin(req.admin, req.account);
    case 'close': {
      host?.close();
      host = null;
      return null;
    }
    case 'crash': process.exit(3);
  }
}

port.on('message', (msg: HostRequest & { id: number }) => {
  let reply: WorkerMessage;
  try {
    reply = { type: 'reply', id: msg.id, ok: true, result: handle(msg) };
  } catch (err) {
    // A command or admin operation that threw may have left the World half-changed; nothing of it
    // was committed. Exit so the host restarts from what the database holds.
    const fatal = msg.op === 'submit' || msg.op === 'admin';
    reply = { type: 'reply', id: msg.id, ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err), fatal };
    if (fatal) {
      port.postMessage(reply);
      port.close();
      process.exit(1);
    }
  }
  port.postMessage(reply);
});

port.postMessage({ type: 'loaded' } satisfies WorkerMessage);
