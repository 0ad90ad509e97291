/** `--bus nats://HOST:PORT`: check the address, then connect (or say clearly why not). */
import type { BusLog } from './bus.js';
import { NatsBus } from './nats-bus.js';

/** The URL, normalised; throws an Error saying what is wrong with it. */
export function parseBusUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`--bus must be nats://HOST:PORT, not "${url}"`);
  }
  if (u.protocol !== 'nats:') throw new Error(`--bus must be a nats:// address (nats://HOST:PORT), not "${url}"`);
  if (!u.hostname) throw new Error(`--bus names no host: "${url}" (nats://HOST:PORT)`);
  if (u.pathname && u.pathname !== '/') throw new Error(`--bus takes no path: "${url}" (nats://HOST:PORT)`);
  const port = u.port ? Number(u.port) : 4222;
  return `nats://${u.username ? `${u.username}${u.password ? `:${u.password}` : ''}@` : ''}${u.hostname}:${port}`;
}

export function openBus(url: string, log: BusLog, clientName?: string): Promise<NatsBus> {
  return NatsBus.connect(parseBusUrl(url), { log, ...(clientName ? { clientName } : {}) });
}
