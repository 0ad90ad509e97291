/**
 * Issue 12, 8: storage faults degrade honestly. When the database cannot be written (here a full disk,
 * made real by a quota on the database: SQLite's own SQLITE_FULL), the game keeps serving reads, refuses
 * actions saying why, changes nothing it cannot save, and /readyz reports not-ready with the reason
 * while /healthz stays live. Once writes work again (restart without the quota) all is as it was saved.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, tempDir, WsClient } from '../server/helpers.js';
import type { ObservationFrame } from '../../server/net/protocol.js';

async function getJson(port: number, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { connection: 'close' } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('a full disk', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it('serves reads, refuses actions with the reason, saves nothing half, and reports not-ready', async () => {
    const db = join(tmp.dir, 'full.db');
    // Run 1: kitty takes the shovel (saved), then a clean stop.
    let server = await startTestServer({ db }, tmp.dir);
    let kitty = await WsClient.open(server.wsUrl);
    await kitty.guest('kitty');
    await kitty.command('get shovel');
    await kitty.close();
    await server.close();

    // Run 2: the database may not grow beyond its size now.
    server = await startTestServer({ db, maxDbBytes: statSync(db).size }, tmp.dir);
    try {
      expect((await getJson(server.httpPort, '/readyz')).status).toBe(200);
      kitty = await WsClient.open(server.wsUrl);
      await kitty.guest('kitty');
      let refused: ObservationFrame | null = null;
      for (let i = 0; i < 300 && !refused; i++) {
        const { result } = await kitty.command(`say filling the disk, line ${i} ${'.'.repeat(200)}`);
        if (!result.ok) refused = result;
      }
      expect(refused).toMatchObject({ ok: false, text: expect.stringContaining('cannot save anything right now (its disk is full)') });
      expect(refused!.seq).toBeUndefined();

      // Reads are served.
      const look = await kitty.command('look');
      expect(look.result).toMatchObject({ ok: true, text: expect.stringContaining('Walled Garden') });
      const inv = await kitty.command('inventory');
      expect(inv.result.text).toContain('shovel');
      // An action is refused and changes nothing.
      const drop = await kitty.command('drop shovel');
      expect(drop.result).toMatchObject({ ok: false, text: expect.stringContaining('its disk is full') });
      expect(drop.state.character.carrying.map((o) => o.id)).toEqual(['shovel']);

      // Liveness and readiness.
      const health = await getJson(server.httpPort, '/healthz');
      expect(health).toMatchObject({ status: 200, body: { ok: true, storage: 'cannot write' } });
      const ready = await getJson(server.httpPort, '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ ready: false, reasons: [expect.stringMatching(/the game cannot save actions: its disk is full \(SQLITE_FULL/)] });

      // Someone arriving now is told.
      const orc = await WsClient.open(server.wsUrl);
      await orc.nextOfType('hello');
      orc.send({ type: 'login', guest: true, character: 'orc' });
      await orc.next((f) => f.type === 'observation' && f.kind === 'system' && f.text.includes('cannot save anything right now'));
      await Promise.all([orc.close(), kitty.close()]);
    } finally {
      await server.close();
    }

    // Run 3: writable again; what was saved is there, what was refused is not.
    server = await startTestServer({ db }, tmp.dir);
    try {
      expect((await getJson(server.httpPort, '/readyz')).status).toBe(200);
      kitty = await WsClient.open(server.wsUrl);
      const state = await kitty.guest('kitty');
      expect(state.character.carrying.map((o) => o.id)).toEqual(['shovel']);
      expect((await kitty.command('drop shovel')).result.ok).toBe(true);
      await kitty.close();
    } finally {
      await server.close();
    }
  });
});
