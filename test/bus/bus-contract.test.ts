/**
 * The bus interface's contract (server/bus/bus.ts), run against both buses: the in-process one and
 * NATS over a real nats-server on 127.0.0.1 (skipped, with the reason, when none is installed).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from 'nats';
import { BusNoResponderError, BusRemoteError, BusTimeoutError, type Bus, type BusLog } from '../../server/bus/bus.js';
import { InProcessBus } from '../../server/bus/in-process-bus.js';
import { NatsBus } from '../../server/bus/nats-bus.js';
import { natsSkip, startNats, type RunningNats } from '../server/nats.js';

interface Logged { obj: object; msg: string }

function recordingLog(): BusLog & { warnings: Logged[] } {
  const warnings: Logged[] = [];
  return { warnings, warn: (obj, msg) => warnings.push({ obj, msg }), info() {} };
}

interface BusKind {
  name: string;
  skip: string | false;
  setup(): Promise<void>;
  teardown(): Promise<void>;
  /** Two ends of one bus (two processes' worth over NATS). */
  open(log: BusLog): Promise<Bus>;
  /** Put raw text on a subject, as a foreign publisher would. */
  raw(subject: string, text: string): Promise<void>;
}

const until = async (what: string, check: () => boolean, ms = 5000) => {
  const t0 = Date.now();
  while (!check()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

let shared: InProcessBus | null = null;
let nats: RunningNats | null = null;
let rawNats: NatsConnection | null = null;

const kinds: BusKind[] = [
  {
    name: 'in-process',
    skip: false,
    async setup() {},
    async teardown() {},
    async open(log) {
      // One bus object per process; "two ends" are two users of it. The log is the bus's own.
      shared ??= new InProcessBus(log);
      return shared;
    },
    async raw(subject, text) {
      shared!.deliver(subject, text);
    },
  },
  {
    name: 'nats',
    skip: natsSkip(),
    async setup() {
      nats = await startNats();
      rawNats = await connect({ servers: nats.url });
    },
    async teardown() {
      await rawNats?.close();
      await nats?.stop();
    },
    open: (log) => NatsBus.connect(nats!.url, { log }),
    async raw(subject, text) {
      rawNats!.publish(subject, new TextEncoder().encode(text));
      await rawNats!.flush();
    },
  },
];

for (const kind of kinds) {
  describe.skipIf(kind.skip)(`the bus contract (${kind.name})`, () => {
    let log: ReturnType<typeof recordingLog>;
    let a: Bus;
    let b: Bus;
    beforeAll(() => kind.setup());
    afterAll(() => kind.teardown());
    afterEach(async () => {
      await a.close();
      await b.close();
      shared = null;
    });
    const open = async () => {
      log = recordingLog();
      a = await kind.open(log);
      b = await kind.open(log);
    };

    it('publishes to every subscriber of a subject, and to nobody else', async () => {
      await open();
      const got: unknown[] = [];
      const other: unknown[] = [];
      b.subscribe('t.greet', (body, subject) => got.push({ body, subject }));
      a.subscribe('t.greet', (body) => got.push({ mine: body }));
      b.subscribe('t.other', (body) => other.push(body));
      if (b instanceof NatsBus) await new Promise((r) => setTimeout(r, 50)); // the subscription reaches the server
      a.publish('t.greet', { hello: 'world', n: 1 });
      await until('both subscribers', () => got.length === 2);
      expect(got).toContainEqual({ body: { hello: 'world', n: 1 }, subject: 't.greet' });
      expect(got).toContainEqual({ mine: { hello: 'world', n: 1 } });
      expect(other).toEqual([]);
      expect(log.warnings).toEqual([]);
    });

    it('answers a request', async () => {
      await open();
      b.serve('t.add', (body) => ({ sum: (body.x as number) + (body.y as number) }));
      if (b instanceof NatsBus) await new Promise((r) => setTimeout(r, 50));
      expect(await a.request('t.add', { x: 2, y: 3 }, 2000)).toEqual({ sum: 5 });
    });

    it('gives each request to one member of a queue group, every member some of them', async () => {
      await open();
      const ran: string[] = [];
      b.serve('t.q', () => (ran.push('one'), { by: 'one' }), { queue: 'workers' });
      b.serve('t.q', () => (ran.push('two'), { by: 'two' }), { queue: 'workers' });
      if (b instanceof NatsBus) await new Promise((r) => setTimeout(r, 50));
      const answers = [];
      for (let i = 0; i < 40; i++) answers.push((await a.request('t.q', { i }, 2000)).by);
      // Each request ran once, by one member; NATS picks at random, so over 40 both are all but certain to be picked.
      expect(ran).toHaveLength(40);
      expect(new Set(answers)).toEqual(new Set(['one', 'two']));
    });

    it('times out a request nobody answers in time, and says when nobody serves the subject', async () => {
      await open();
      b.serve('t.slow', () => new Promise((r) => setTimeout(() => r({ late: true }), 1000)));
      if (b instanceof NatsBus) await new Promise((r) => setTimeout(r, 50));
      const t0 = Date.now();
      await expect(a.request('t.slow', {}, 150)).rejects.toBeInstanceOf(BusTimeoutError);
      const waited = Date.now() - t0;
      expect(waited).toBeGreaterThanOrEqual(140);
      expect(waited).toBeLessThan(900);
      await expect(a.request('t.nobody', {}, 1000)).rejects.toBeInstanceOf(BusNoResponderError);
    });

    it('passes a responder\'s failure back as an error', async () => {
      await open();
      b.serve('t.fail', () => {
        throw new Error('no such thing');
      });
      if (b instanceof NatsBus) await new Promise((r) => setTimeout(r, 50));
      await expect(a.request('t.fail', {}, 2000)).rejects.toThrow(BusRemoteError);
      await expect(a.request('t.fail', {}, 2000)).rejects.toThrow(/no such thing/);
    });

    it('drops bad JSON and unknown versions (logged), and goes on delivering', async () => {
      await open();
      const got: unknown[] = [];
      b.subscribe('t.in', (body) => got.push(body));
      if (b instanceof NatsBus) await new Promise((r) => setTimeout(r, 50));
      await kind.raw('t.in', '{not json');
      await kind.raw('t.in', JSON.stringify({ v: 99, body: { future: true } }));
      await kind.raw('t.in', JSON.stringify({ body: { noVersion: true } }));
      await kind.raw('t.in', JSON.stringify([1, 2]));
      a.publish('t.in', { fine: true });
      await until('the good message', () => got.length === 1);
      await until('four warnings', () => log.warnings.length >= 4);
      expect(got).toEqual([{ fine: true }]);
      const reasons = log.warnings.map((w) => (w.obj as { err: string }).err).join('\n');
      expect(reasons).toMatch(/not JSON/);
      expect(reasons).toMatch(/unknown version 99/);
      expect(reasons).toMatch(/unknown version undefined/);
      expect(reasons).toMatch(/not an envelope/);
      expect(log.warnings.every((w) => /dropped/.test(w.msg))).toBe(true);
    });

    it('a flood of bad messages is worth a few warnings, not one each, and good ones still arrive', async () => {
      await open();
      const got: unknown[] = [];
      b.subscribe('t.flood', (body) => got.push(body));
      if (b instanceof NatsBus) await new Promise((r) => setTimeout(r, 50));
      for (let i = 0; i < 500; i++) await kind.raw('t.flood', '{not json');
      a.publish('t.flood', { fine: true });
      await until('the good message', () => got.length === 1);
      await new Promise((r) => setTimeout(r, 50));
      expect(got).toEqual([{ fine: true }]);
      expect(log.warnings.length).toBeGreaterThanOrEqual(1);
      expect(log.warnings.length).toBeLessThanOrEqual(12);
    });
  });
}
