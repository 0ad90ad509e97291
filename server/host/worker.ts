/**
 * The game host's thread. The network side (main thread) keeps every socket; this thread owns the
 * World and the database's world tables. Restarting it (an admin `@reload`, or a crash) reloads the
 * game code from disk and the state from the database while every player stays connected.
 * The game itself is server/host/game-service.ts; this file is its transport over the thread's port.
 */
import { parentPort } from 'node:worker_threads';
import { serveGame } from './game-service.js';
import type { HostRequest, WorkerMessage } from './types.js';

const port = parentPort;
if (!port) throw new Error('server/host/worker.ts runs as a worker thread (see server/host/host.ts)');

serveGame({
  // Replies and states, the hot path, cross as JSON text: stringify here and parse there cost about half of
  // the structured clone's serialize and deserialize (a character's state: 4 + 5 us against 8 + 12 us), and
  // the network thread is the busier one.
  post: (msg: WorkerMessage) => port.postMessage(msg.type === 'log' ? msg : JSON.stringify(msg)),
  onRequest: (handler: (msg: HostRequest & { id: number }) => void) => void port.on('message', handler),
  close: () => port.close(),
});

port.postMessage({ type: 'loaded' } satisfies WorkerMessage);
