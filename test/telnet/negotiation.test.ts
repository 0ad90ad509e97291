import { describe, expect, it } from 'vitest';
import { Negotiation, type NegotiationResult } from '../../server/net/telnet/negotiation.js';
import { DO, DONT, WILL, WONT, type Verb } from '../../server/net/telnet/constants.js';

const TTYPE = 24;
const EOR = 25;
const GMCP = 201;
const LINEMODE = 34;

function server(): Negotiation {
  return new Negotiation({
    acceptUs: (o) => o === EOR || o === GMCP,
    acceptHim: (o) => o === TTYPE,
  });
}

const sends = (r: NegotiationResult) => r.send.map((s) => [s.verb, s.option]);

describe('telnet option negotiation (RFC 1143)', () => {
  it('offers, and takes the peer agreeing as enabling without answering it', () => {
    const n = server();
    expect(sends(n.enable('us', GMCP))).toEqual([[WILL, GMCP]]);
    expect(n.isPending('us', GMCP)).toBe(true);
    const r = n.receive(DO, GMCP);
    expect(r.send).toEqual([]);
    expect(r.changes).toEqual([{ side: 'us', option: GMCP, enabled: true }]);
    expect(n.isEnabled('us', GMCP)).toBe(true);
    // A repeated DO is not answered either.
    expect(n.receive(DO, GMCP).send).toEqual([]);
  });

  it('takes a refusal of an offer silently', () => {
    const n = server();
    n.enable('us', GMCP);
    const r = n.receive(DONT, GMCP);
    expect(r.send).toEqual([]);
    expect(r.refused).toEqual([{ side: 'us', option: GMCP }]);
    expect(n.isEnabled('us', GMCP)).toBe(false);
  });

  it('refuses an unsupported option exactly once per side', () => {
    const n = server();
    expect(sends(n.receive(WILL, LINEMODE))).toEqual([[DONT, LINEMODE]]);
    expect(sends(n.receive(WILL, LINEMODE))).toEqual([]);
    expect(sends(n.receive(DO, LINEMODE))).toEqual([[WONT, LINEMODE]]);
    expect(sends(n.receive(DO, LINEMODE))).toEqual([]);
  });

  it('never answers DONT/WONT for an option that is off', () => {
    const n = server();
    expect(n.receive(DONT, GMCP).send).toEqual([]);
    expect(n.receive(WONT, TTYPE).send).toEqual([]);
  });

  it('agrees to a supported request and acknowledges a later disable', () => {
    const n = server();
    expect(sends(n.receive(WILL, TTYPE))).toEqual([[DO, TTYPE]]);
    expect(n.isEnabled('him', TTYPE)).toBe(true);
    const r = n.receive(WONT, TTYPE);
    expect(sends(r)).toEqual([[DONT, TTYPE]]);
    expect(r.changes).toEqual([{ side: 'him', option: TTYPE, enabled: false }]);
  });

  it('queues a change of mind while a request is outstanding', () => {
    const n = server();
    n.enable('us', EOR);
    expect(n.disable('us', EOR).send).toEqual([]); // queued
    // The peer's DO answers our WILL; we then ask to disable as queued.
    expect(sends(n.receive(DO, EOR))).toEqual([[WONT, EOR]]);
    expect(n.receive(DONT, EOR).send).toEqual([]);
    expect(n.isEnabled('us', EOR)).toBe(false);
  });

  it('two parties negotiating at random always fall quiet (no loops)', () => {
    let seed = 1;
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    for (let round = 0; round < 200; round++) {
      const a = new Negotiation({ acceptUs: () => rand() < 0.5, acceptHim: () => rand() < 0.5 });
      const b = new Negotiation({ acceptUs: () => rand() < 0.5, acceptHim: () => rand() < 0.5 });
      const toB: Array<[Verb, number]> = [];
      const toA: Array<[Verb, number]> = [];
      const push = (q: Array<[Verb, number]>, r: NegotiationResult) => r.send.forEach((s) => q.push([s.verb, s.option]));
      for (let k = 0; k < 10; k++) {
        const opt = Math.floor(rand() * 4);
        const side = rand() < 0.5 ? 'us' : 'him';
        push(toB, rand() < 0.6 ? a.enable(side, opt) : a.disable(side, opt));
        push(toA, rand() < 0.6 ? b.enable(side, opt) : b.disable(side, opt));
      }
      let messages = 0;
      while (toA.length || toB.length) {
        expect(++messages).toBeLessThan(200);
        const m = toB.shift();
        if (m) push(toA, b.receive(m[0], m[1]));
        const n = toA.shift();
        if (n) push(toB, a.receive(n[0], n[1]));
      }
      // Both ends agree on every option's state once quiet.
      for (let opt = 0; opt < 4; opt++) {
        expect(a.isEnabled('us', opt)).toBe(b.isEnabled('him', opt));
        expect(a.isEnabled('him', opt)).toBe(b.isEnabled('us', opt));
      }
    }
  });
});
