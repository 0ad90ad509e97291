/**
 * The worlds a PostgreSQL database keeps, and who writes each now (`lightmud shard --list`): the live
 * truth is the advisory lock (pg_locks: held or not, by which connection); lightmud_world_owners says
 * which shard took it last and when.
 */
import pg from 'pg';
import { LOCK_CLASS, lockHolderSql } from './pg-store.js';

export interface PgWorldRow {
  world: string;
  /** The last event's sequence number (0: none yet). */
  seq: number;
  /** Whether a connection holds the world's lock now, and which (its application name: "lightmud pid N world W"). */
  held: boolean;
  holder: string | null;
  /** Who took the lock last, as it recorded itself ("shard UUID pid N"), and when (ms since the epoch). */
  owner: string | null;
  since: number | null;
}

export async function listPgWorlds(url: string): Promise<PgWorldRow[]> {
  const client = new pg.Client({ connectionString: url, application_name: 'lightmud shard --list' });
  await client.connect();
  try {
    const exists = await client.query<{ t: string | null }>("SELECT to_regclass('lightmud_meta')::text AS t");
    if (!exists.rows[0]?.t) return [];
    const owners = await client.query<{ t: string | null }>("SELECT to_regclass('lightmud_world_owners')::text AS t");
    const r = await client.query<{ world: string; seq: string; holder: string | null; owner: string | null; since: string | null }>(
      `SELECT w.world,
              COALESCE((SELECT MAX(seq) FROM lightmud_events e WHERE e.world = w.world), 0) AS seq,
              (SELECT a.application_name FROM ${lockHolderSql('w.world', '$1')} LIMIT 1) AS holder,
              ${owners.rows[0]?.t ? 'o.owner, o.since' : 'NULL AS owner, NULL AS since'}
         FROM (SELECT world FROM lightmud_meta${owners.rows[0]?.t ? ' UNION SELECT world FROM lightmud_world_owners' : ''}) w
         ${owners.rows[0]?.t ? 'LEFT JOIN lightmud_world_owners o ON o.world = w.world' : ''}
        ORDER BY w.world`,
      [LOCK_CLASS],
    );
    return r.rows.map((x) => ({ world: x.world, seq: Number(x.seq), held: x.holder !== null, holder: x.holder, owner: x.owner, since: x.since === null ? null : Number(x.since) }));
  } finally {
    await client.end().catch(() => {});
  }
}
