import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { ACTIONS } from '../../server/engine/index.js';
import { EngineAdapter, readCases, runCase, runCases, type StateUpdateAdapter } from '../../server/api/state-updates.js';

const file = readCases();

describe('state-update cases (world-data/eval/state-updates.json)', () => {
  it('has at least 40 cases, every engine action among them, refusals and successes both', () => {
    expect(file.cases.length).toBeGreaterThanOrEqual(40);
    const about = new Set(file.cases.map((c) => c.action));
    for (const a of Object.keys(ACTIONS)) expect(about, a).toContain(a);
    expect(new Set(file.cases.map((c) => c.id)).size).toBe(file.cases.length);
    expect(file.cases.filter((c) => !c.expect.ok).length).toBeGreaterThanOrEqual(15);
    expect(file.cases.filter((c) => c.expect.ok && (c.expect.state || c.expect.gone)).length).toBeGreaterThanOrEqual(15);
  });

  for (const c of file.cases) {
    it(`${c.id}: ${c.about}`, async () => {
      const r = await runCase(new EngineAdapter(), file, c);
      expect(r.problems).toEqual([]);
    });
  }

  it('fails an adapter that gets the updates wrong', async () => {
    // A game master that agrees to everything and changes nothing.
    const yesMan: StateUpdateAdapter = {
      name: 'yes-man',
      inner: new EngineAdapter(),
      async start(world, setup) {
        await this.inner.start(world, setup);
      },
      async act() {
        return { ok: true, text: 'Done.' };
      },
      places(ids) {
        return this.inner.places(ids);
      },
    } as StateUpdateAdapter & { inner: EngineAdapter };
    const results = await runCases(yesMan, file);
    const failed = results.filter((r) => !r.pass);
    // Every case expecting a refusal or a change fails; only the ones where nothing changes and the call succeeds pass.
    expect(failed.length).toBeGreaterThanOrEqual(file.cases.length - 6);
    const wrong = structuredClone(file.cases.find((c) => c.id === 'get-room')!);
    wrong.expect.state = { shovel: 'in garden' };
    expect((await runCase(new EngineAdapter(), file, wrong)).problems).toEqual(['shovel: expected in garden, is carried by kitty']);
  });

  it('runs as lightmud eval --task state-updates', () => {
    const bin = new URL('../../bin/lightmud.mjs', import.meta.url).pathname;
    const r = spawnSync(process.execPath, [bin, 'eval', '--task', 'state-updates'], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    const last = JSON.parse(r.stdout.trim().split('\n').pop()!);
    expect(last).toMatchObject({ task: 'state-updates', adapter: 'engine', cases: file.cases.length, passed: file.cases.length, failed: [] });
  });
});
