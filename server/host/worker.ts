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
    case 'submit': return need().submit(req.actor, req.text, req.account, req.cause ?? null); // (batched above)
    case 'state': return need().state(req.actor);
    case 'agentView': return need().agentView(req.actor, req.opts);
    case 'look': return need().look(req.actor);
    case 'characters': return need().characters();
    case 'summary': return need().summary();
    case 'watch': {
      if (req.on) need().watched.add(req.actor);
      else need().watched.delete(req.actor);
      return null;
    }
    case 'admin': return need().admin(req.admin, req.account, req.cause ?? null);
    case 'close': {
      host?.close();
      host = null;
      return null;
    }
    case 'crash': process.exit(3);
  }
}

/** Commands executed since the last commit, by request id, in order. */
const batch: number[] = [];
/** When the first command of the batch began executing. */
let batchStarted = 0;
/** A batch is committed once its commands have taken this long to execute, even if more are waiting. */
const BATCH_MS = 5;
let flushScheduled = false;

function fatal(ids: number[], err: unknown): never {
  // A command or admin operation that threw may have left the World half-changed, and nothing of
  // it was committed. Exit, so the host restarts from what the database holds.
  const error = err instanceof Error ? err.message : String(err);
  const stack = err instanceof Error ? err.stack : undefined;
  for (const id of ids) port!.postMessage({ type: 'reply', id, ok: false, error, stack, fatal: true } satisfies WorkerMessage);
  port!.close();
  process.exit(1);
}

/** Commit the commands executed so far in one transaction, then answer them. */
function flush(): void {
  if (!batch.length) return;
  const ids = batch.splice(0);
  let results;
  try {
    results = need().commit();
  } catch (err) {
    fatal(ids, err);
  }
  // One message for the batch: the network thread handles its answers together (one write per connection).
  port!.postMessage({ type: 'replies', ids, results } satisfies WorkerMessage);
  // The periodic snapshot, when due, after the answers: they need not wait for it.
  try {
    need().snapshotIfDue();
  } catch (err) {
    fatal([], err);
  }
  if (!statesScheduled && need().staleObservers) {
    statesScheduled = true;
    setImmediate(sendStates);
  }
}

let statesScheduled = false;

/**
 * The fresh states of those who perceived a change, after the answers of the commands that changed
 * their rooms, and at the next turn of the event loop: a burst of commands committed in several
 * batches costs one state per observer, not one per batch.
 */
function sendStates(): void {
  statesScheduled = false;
  if (!host) return;
  // Only committed changes are shown: commands executed since are committed (and answered) first.
  if (batch.length) flush();
  let states;
  try {
    states = need().observerStates();
  } catch (err) {
    fatal([], err);
  }
  if (Object.keys(states).length) port!.postMessage({ type: 'states', states } satisfies WorkerMessage);
}

port.on('message', (msg: HostRequest & { id: number }) => {
  if (msg.op === 'submit' && msg.validOnly && !need().isValidAction(msg.actor, msg.text)) {
    // A model character's action that stopped being valid since it chose it: refused, not executed.
    flush();
    port.postMessage({ type: 'reply', id: msg.id, ok: true, result: need().refusal(msg.text) } satisfies WorkerMessage);
    return;
  }
  if (msg.op === 'submit') {
    // Execute now; answer after the group commit at the end of this turn of the event loop.
    if (!batch.length) batchStarted = performance.now();
    try {
      need().prepare(msg.actor, msg.text, msg.account, msg.cause ?? null);
    } catch (err) {
      fatal([...batch.splice(0), msg.id], err);
    }
    batch.push(msg.id);
    // A burst (the network thread hands over hundreds of commands at once) is committed and answered
    // in slices of about BATCH_MS of work: the first commands of a burst need not wait for the last,
    // and the network thread sends their frames while this thread executes the next slice.
    if (performance.now() - batchStarted >= BATCH_MS) return flush();
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(() => {
        flushScheduled = false;
        flush();
      });
    }
    return;
  }
  // Anything else sees (and is answered after) every command before it.
  flush();
  let reply: WorkerMessage;
  try {
    reply = { type: 'reply', id: msg.id, ok: true, result: handle(msg) };
  } catch (err) {
    if (msg.op === 'admin') fatal([msg.id], err);
    reply = { type: 'reply', id: msg.id, ok: false, error: err instanceof Error ? err.message : String(err), stack: err instanceof Error ? err.stack : undefined };
  }
  port.postMessage(reply);
});

port.postMessage({ type: 'loaded' } satisfies WorkerMessage);
