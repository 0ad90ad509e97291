/** `again` survives a crash: the log holds the command it ran, so a replay from a snapshot does the same. */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GameHost } from '../../server/host/game-host.js';
import { tempDir, writeLittleWorld } from './helpers.js';

describe('again and the command log', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it('a replay after the snapshot repeats what again did', () => {
    const db = join(tmp.dir, 'again.db');
    const world = writeLittleWorld(tmp.dir);
    const host = GameHost.open({ db, world, snapshotEvery: 2 });
    expect(host.submit('gardener', 'look').ok).toBe(true);
    expect(host.submit('gardener', 'get candle').ok).toBe(true); // the second command: a snapshot
    const again = host.submit('gardener', 'again'); // after the snapshot, only in the log
    expect(again.ok).toBe(true);
    expect(again.action).toBe('get candle');
    // a second host on the same file recovers as after a crash: the snapshot, then the log
    const recovered = GameHost.open({ db, world });
    expect(recovered.info).toMatchObject({ restored: 'snapshot', replayed: 1, diverged: 0 });
    expect(recovered.state('gardener')!.character.carrying.filter((o) => o.name === 'candle')).toHaveLength(2);
    recovered.close();
    host.close();
  });
});
