/**
 * The game service's transport (server/host/game-service.ts): how it receives HostRequests and posts
 * WorkerMessages. A worker thread's port in the single-process server (worker.ts); the bus in a shard
 * of a cluster (server/cluster/shard.ts).
 */
import type { HostRequest, WorkerMessage } from './types.js';

export interface GameChannel {
  /** Send a reply, the answers of a committed batch, fresh states or a log line. */
  post(msg: WorkerMessage): void;
  /** Receive the requests, each with an id unique on this channel (its reply carries it). */
  onRequest(handler: (msg: HostRequest & { id: number }) => void): void;
  /** The service is about to exit: nothing more will be posted. */
  close(): void;
}
