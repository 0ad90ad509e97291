/**
 * The game host's service loop: it owns the World and the database's world tables, takes HostRequests
 * and posts WorkerMessages (replies, states, logs) over a GameChannel. The same loop runs in the host's
 * worker thread (server/host/worker.ts, the single-process server: the channel is the thread's port)
 * and in a shard process of a cluster (server/cluster/shard.ts: the channel is the bus). On a fatal
 * error the process (or the thread) exits, so whoever watches it restarts from what the database holds.
 */
import { threadId } from 'node:worker_threads';
import { GameHost, type StandbyOptions } from './game-host.js';
import type { GameChannel } from './game-channel.js';
import type { HostRequest, SubmitResult } from './types.js';

/**
 * Serve the game over `channel` until the process ends. `standby`: how a PostgreSQL world waits for its
 * lock and whom it records as its owner (a shard's; the single-process server leaves the defaults).
 */
export function serveGame(channel: GameChannel, standby: Omit<StandbyOptions, 'onWait'> = {}): void {
  let host: GameHost | null = null;

  function need(): GameHost {
    if (!host) throw new Error('the game host is not open');
    return host;
  }

  /**
   * SQLite answers everything synchronously, as it always has. PostgreSQL's writes are promises: while
   * one is in flight (`busy`), later messages wait in `waiting`, in order, and are neither executed nor
   * answered until it is committed, so nothing is ever acknowledged before its commit and nothing runs
   * on a state whose write may yet fail. Commands that arrive meanwhile are committed together next.
   */
  let busy = false;
  const waiting: (HostRequest & { id: number })[] = [];

  const log = (level: 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>) => channel.post({ type: 'log', level, msg, data });

  function closeHost(): void | Promise<void> {
    const h = host;
    host = null;
    if (!h) return;
    return h.store.sync ? h.close() : h.closeAsync();
  }

  function handle(req: HostRequest): unknown {
    switch (req.op) {
      case 'open': {
        const open = (): unknown => {
          const opened = (h: GameHost) => {
            host = h;
            for (const id of req.watch) h.watched.add(id);
            return { ...h.info, thread: threadId };
          };
          // The game's thread leaves the SQLite file's WAL checkpoints to a thread of their own (wal-checkpointer.ts).
          if (!req.config.pg) return opened(GameHost.open({ checkpointThread: true, ...req.config }));
          const world = req.config.pg.world;
          return GameHost.openAsync(req.config, {
            ...standby,
            onWait: (holder) => log('error', `the world "${world}" in PostgreSQL is held by another server; standing by: this server takes it over when that server's connection ends`, { world, holder }),
          }).then(opened);
        };
        const closing = closeHost();
        return closing ? closing.then(open) : open();
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
      case 'admin': return need().adminStep(req.admin, req.account, req.cause ?? null);
      case 'close': {
        const closing = closeHost();
        return closing ? closing.then(() => null) : null;
      }
      case 'health': {
        const store = need().store;
        // A PostgreSQL store whose connection is gone has lost the world's lock: answerError makes it fatal.
        if (!store.open) throw Object.assign(new Error(`the store (${store.name}) is lost: its connection, and the world's lock with it, is gone`), { code: 'LIGHTMUD_STORE_LOST' });
        return { store: store.name };
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
    // it was committed. Exit, so the host restarts from what the database holds. (So does a lost
    // PostgreSQL connection: the world's lock went with it.)
    const error = err instanceof Error ? err.message : String(err);
    const stack = err instanceof Error ? err.stack : undefined;
    for (const id of ids) channel.post({ type: 'reply', id, ok: false, error, stack, fatal: true });
    channel.close();
    process.exit(1);
  }

  /**
   * Commit the commands executed so far in one transaction, then answer them (and write the periodic
   * snapshot when due). A promise while PostgreSQL commits; it resolves once the snapshot is written too.
   */
  function flush(): void | Promise<void> {
    if (!batch.length) return;
    const ids = batch.splice(0);
    let results;
    try {
      results = need().commitStep();
    } catch (err) {
      fatal(ids, err);
    }
    if (!(results instanceof Promise)) return committed(ids, results);
    return results.then((r) => committed(ids, r), (err: unknown) => fatal(ids, err));
  }

  /**
   * A batch is committed: its answers, in one message (the network thread handles them together, one
   * write per connection); then the periodic snapshot, when due, in its own write: the answers need
   * not wait for it. On PostgreSQL that write is a promise, part of the step the worker holds later
   * messages for (never in parallel with the next commit on the world's one connection). A storage
   * fault there is noted by the host (writes refused until a retry succeeds); anything else is fatal.
   */
  function committed(ids: number[], results: SubmitResult[]): void | Promise<void> {
    channel.post({ type: 'replies', ids, results });
    let snapshot;
    try {
      snapshot = need().snapshotStep();
    } catch (err) {
      fatal([], err);
    }
    if (snapshot instanceof Promise) return snapshot.then(scheduleStates, (err: unknown) => fatal([], err));
    scheduleStates();
  }

  let statesScheduled = false;

  function scheduleStates(): void {
    if (statesScheduled || !host?.staleObservers) return;
    statesScheduled = true;
    setImmediate(sendStates);
  }

  /**
   * The fresh states of those who perceived a change, after the answers of the commands that changed
   * their rooms, and at the next turn of the event loop: a burst of commands committed in several
   * batches costs one state per observer, not one per batch.
   */
  function sendStates(): void {
    statesScheduled = false;
    if (!host) return;
    // Only committed changes are shown. While PostgreSQL writes, the world may hold the batch in flight:
    // the states wait their turn. Commands executed since are committed (and answered) first.
    if (busy) return void waiting.push({ op: 'states' } as unknown as HostRequest & { id: number });
    const r = flush();
    if (r) hold(r.then(postStates));
    else postStates();
  }

  function postStates(): void {
    if (!host) return;
    let states;
    try {
      states = need().observerStates();
    } catch (err) {
      fatal([], err);
    }
    if (Object.keys(states).length) channel.post({ type: 'states', states });
  }

  /** Run `step` to its end before any other message: later ones wait in `waiting`. */
  function hold(step: Promise<unknown>): void {
    busy = true;
    void step.then(
      () => {
        busy = false;
        while (waiting.length && !busy) receive(waiting.shift()!);
      },
      (err: unknown) => fatal([], err),
    );
  }

  function scheduleFlush(): void {
    if (flushScheduled) return;
    flushScheduled = true;
    setImmediate(() => {
      flushScheduled = false;
      if (busy) return scheduleFlushAfterBusy();
      const r = flush();
      if (r) hold(r);
    });
  }

  /** A flush that came due while a write was in flight: it runs once the write is done (its commands were executed before it). */
  function scheduleFlushAfterBusy(): void {
    waiting.push({ op: 'flush' } as unknown as HostRequest & { id: number });
  }

  function receive(msg: HostRequest & { id: number }): void {
    if (busy) {
      waiting.push(msg);
      return;
    }
    if ((msg as { op: string }).op === 'flush') {
      const r = flush();
      if (r) hold(r);
      return;
    }
    if ((msg as { op: string }).op === 'states') return sendStates();
    if (msg.op === 'submit' && msg.validOnly && !need().isValidAction(msg.actor, msg.text)) {
      // A model character's action that stopped being valid since it chose it: refused, not executed.
      const r = flush();
      const refuse = () => channel.post({ type: 'reply', id: msg.id, ok: true, result: need().refusal(msg.text) });
      if (r) hold(r.then(refuse));
      else refuse();
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
      // (On PostgreSQL the slice's commit is held for: the rest of the burst waits for its COMMIT.)
      if (performance.now() - batchStarted >= BATCH_MS) {
        const r = flush();
        if (r) hold(r);
        return;
      }
      scheduleFlush();
      return;
    }
    // Anything else sees (and is answered after) every command before it.
    const run = (): void | Promise<void> => {
      let result: unknown;
      try {
        result = handle(msg);
      } catch (err) {
        return answerError(msg, err);
      }
      if (!(result instanceof Promise)) {
        channel.post({ type: 'reply', id: msg.id, ok: true, result });
        return;
      }
      return result.then(
        (r: unknown) => channel.post({ type: 'reply', id: msg.id, ok: true, result: r }),
        (err: unknown) => answerError(msg, err),
      );
    };
    const flushed = flush();
    if (flushed) hold(flushed.then(run));
    else {
      const r = run();
      if (r) hold(r);
    }
  }

  function answerError(msg: HostRequest & { id: number }, err: unknown): void {
    if (msg.op === 'admin') fatal([msg.id], err);
    // PostgreSQL's connection, and the world's lock with it, is gone (server/store/pg-store.ts, StoreLostError).
    if ((err as { code?: unknown } | null)?.code === 'LIGHTMUD_STORE_LOST') fatal([msg.id], err);
    const code = (err as { code?: unknown } | null)?.code;
    channel.post({ type: 'reply', id: msg.id, ok: false, error: err instanceof Error ? err.message : String(err), stack: err instanceof Error ? err.stack : undefined, ...(typeof code === 'string' ? { code } : {}) });
  }

  channel.onRequest((msg) => receive(msg));
}
