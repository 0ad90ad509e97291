/** The bus's warnings are limited: a burst, then a steady rate, and what was held back is counted in the next one. */
import { describe, expect, it } from 'vitest';
import { limitedLog } from '../../server/bus/limited-log.js';

describe('a limited bus log', () => {
  it('lets a burst through, holds back the rest, and says how many when it speaks again', () => {
    let t = 0;
    const said: { obj: object; msg: string }[] = [];
    const log = limitedLog({ warn: (obj, msg) => said.push({ obj, msg }), info: (obj, msg) => said.push({ obj, msg }) }, { burst: 3, perMinute: 60, now: () => t });
    for (let i = 0; i < 100; i++) log.warn({ i }, 'a bad message on the bus was dropped');
    expect(said.map((s) => s.msg)).toEqual(Array(3).fill('a bad message on the bus was dropped'));
    log.info({}, 'the bus is back');
    expect(said).toHaveLength(4);
    t += 1000; // one more a second at 60 a minute
    log.warn({ i: 100 }, 'a bad message on the bus was dropped');
    expect(said.slice(4).map((s) => s.msg)).toEqual(['97 more bus warnings were held back', 'a bad message on the bus was dropped']);
    log.warn({ i: 101 }, 'a bad message on the bus was dropped');
    expect(said).toHaveLength(6);
  });
});
