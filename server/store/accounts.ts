/**
 * Accounts and session tokens. Passwords are hashed with scrypt (node:crypto, run on libuv's thread
 * pool so hashing never blocks the event loop), each with its own random salt; the parameters are
 * stored with the hash so they can be raised later. Tokens (nanoid, 126 bits) let a client take its
 * character up again after a disconnect; the database keeps only their SHA-256, so a copy of it (a
 * backup, a leak) resumes nobody's session.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { nanoid } from 'nanoid';
import { hashToken, isStorageError, type Db } from './db.js';

export type Role = 'player' | 'admin';

export interface Account {
  id: number;
  name: string;
  role: Role;
  /** The character last played, if any. */
  character: string | null;
}

export interface TokenGrant {
  token: string;
  accountId: number | null;
  character: string;
  expiresAt: number;
}

/** scrypt cost: N = 2^15, r = 8, p = 1 (32 MiB, tens of milliseconds a hash). */
const KDF = { N: 1 << 15, r: 8, p: 1, keyLen: 32 };
const NAME_RE = /^[A-Za-z][A-Za-z0-9_-]{1,23}$/;
export const MIN_PASSWORD = 6;
export const MAX_PASSWORD = 200;

export class AccountError extends Error {
  constructor(readonly code: 'bad_name' | 'name_taken' | 'unavailable', message: string) {
    super(message);
  }
}

function scryptAsync(password: string, salt: Buffer, N: number, r: number, p: number, keyLen: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, keyLen, { N, r, p, maxmem: 256 * N * r + 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, KDF.N, KDF.r, KDF.p, KDF.keyLen);
  return `scrypt$${KDF.N}$${KDF.r}$${KDF.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [alg, n, r, p, salt, hash] = stored.split('$');
  if (alg !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await scryptAsync(password, Buffer.from(salt, 'base64'), Number(n), Number(r), Number(p), expected.length);
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** Hash of a password nobody has: verifying against it costs the same time as against a real one. */
let dummyHash: Promise<string> | null = null;

export function checkAccountName(name: string): string | null {
  if (!NAME_RE.test(name)) return 'An account name is 2 to 24 letters, digits, - or _, starting with a letter.';
  return null;
}

export function checkPassword(password: string): string | null {
  if (password.length < MIN_PASSWORD) return `A password needs at least ${MIN_PASSWORD} characters.`;
  if (password.length > MAX_PASSWORD) return `A password has at most ${MAX_PASSWORD} characters.`;
  return null;
}

interface AccountRow {
  id: number;
  name: string;
  password: string;
  role: Role;
  character: string | null;
}

const toAccount = (r: AccountRow): Account => ({ id: r.id, name: r.name, role: r.role, character: r.character });

export class AccountStore {
  private lastPrune = 0;
  /** Set when a write to the accounts failed for want of storage (disk full, read-only); cleared by the next write that works. */
  storageFault: { code: string; message: string; since: number } | null = null;

  /** Run a write; a storage failure is noted and, unless `rethrow`, swallowed (the write is then lost). */
  private write<T>(what: string, fn: () => T, fallback: T, rethrow = false): T {
    try {
      const r = fn();
      this.storageFault = null;
      return r;
    } catch (err) {
      if (!isStorageError(err)) throw err;
      this.storageFault = { code: err.code, message: `${what}: ${err.message}`, since: this.storageFault?.since ?? Date.now() };
      if (rethrow) throw new AccountError('unavailable', 'The server cannot save changes to accounts right now (its database cannot be written); try again later. Guests can still play.');
      return fallback;
    }
  }
  /**
   * Names given with `--admin` that were not accounts at start-up: they get nothing, ever (a name
   * registered later is a player like any other; see grantAtStart).
   */
  readonly unknownAdmins: string[] = [];

  /**
   * `opts.admins`: names that get the admin role now, if (and only if) they are accounts already in the
   * database. Registering one of these names later gives no role: whoever registers a name first must
   * never become an admin by it. Roles are otherwise granted with `lightmud admin grant NAME`.
   */
  constructor(readonly db: Db, opts: { admins?: string[] } = {}) {
    for (const name of opts.admins ?? []) {
      if (!this.setRole(name, 'admin')) this.unknownAdmins.push(name);
    }
  }

  get(name: string): Account | null {
    const row = this.db.prepare('SELECT id, name, password, role, character FROM accounts WHERE name = ?').get(name) as AccountRow | undefined;
    return row ? toAccount(row) : null;
  }

  byId(id: number): Account | null {
    const row = this.db.prepare('SELECT id, name, password, role, character FROM accounts WHERE id = ?').get(id) as AccountRow | undefined;
    return row ? toAccount(row) : null;
  }

  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM accounts').get() as { n: number }).n;
  }

  async register(name: string, password: string): Promise<Account> {
    const problem = checkAccountName(name) ?? checkPassword(password);
    if (problem) throw new AccountError('bad_name', problem);
    if (this.get(name)) throw new AccountError('name_taken', `The name "${name}" is taken.`);
    const hash = await hashPassword(password);
    // Never an admin by registering: roles are granted only to existing accounts (lightmud admin grant).
    const role: Role = 'player';
    try {
      const r = this.write('register', () => this.db.prepare('INSERT INTO accounts (name, password, role, created_at) VALUES (?, ?, ?, ?)').run(name, hash, role, Date.now()), null, true)!;
      return { id: Number(r.lastInsertRowid), name, role, character: null };
    } catch (err) {
      // Two registrations of one name raced through the KDF: the UNIQUE constraint decides.
      if (err instanceof Error && !(err instanceof AccountError) && /UNIQUE/.test(err.message)) throw new AccountError('name_taken', `The name "${name}" is taken.`);
      throw err;
    }
  }

  /** The account, if the password is right; null otherwise (same time either way). */
  async verify(name: string, password: string): Promise<Account | null> {
    const row = this.db.prepare('SELECT id, name, password, role, character FROM accounts WHERE name = ?').get(name) as AccountRow | undefined;
    if (!row) {
      dummyHash ??= hashPassword(nanoid());
      await verifyPassword(password, await dummyHash);
      return null;
    }
    if (!(await verifyPassword(password, row.password))) return null;
    // Not saved when the disk is full or read-only: the login works all the same.
    this.write('last login', () => this.db.prepare('UPDATE accounts SET last_login_at = ? WHERE id = ?').run(Date.now(), row.id), null);
    return toAccount(row);
  }

  /**
   * Set a new password (checked as at registration). Every resume token of the account is revoked but
   * `keepToken` (the session that asked): other devices log in again with the new password.
   */
  async setPassword(accountId: number, password: string, keepToken?: string): Promise<void> {
    const problem = checkPassword(password);
    if (problem) throw new AccountError('bad_name', problem);
    const hash = await hashPassword(password);
    this.write('password', () => this.db.transaction(() => {
      this.db.prepare('UPDATE accounts SET password = ? WHERE id = ?').run(hash, accountId);
      this.db.prepare('DELETE FROM tokens WHERE account_id = ? AND token != ?').run(accountId, keepToken ? hashToken(keepToken) : '');
    })(), undefined, true);
  }

  /** Delete an account and its tokens, for good. (The event log keeps the name on what it did.) */
  deleteAccount(accountId: number): boolean {
    return this.write('delete account', () => this.db.transaction(() => {
      this.db.prepare('DELETE FROM tokens WHERE account_id = ?').run(accountId);
      return this.db.prepare('DELETE FROM accounts WHERE id = ?').run(accountId).changes > 0;
    })(), false, true);
  }

  /** Give an existing account a role; false when there is no such account. */
  setRole(name: string, role: Role): boolean {
    return this.db.prepare('UPDATE accounts SET role = ? WHERE name = ?').run(role, name).changes > 0;
  }

  /** The role the database holds now (a grant or revoke made while the server runs counts at once). */
  roleOf(accountId: number): Role | null {
    const row = this.db.prepare('SELECT role FROM accounts WHERE id = ?').get(accountId) as { role: Role } | undefined;
    return row?.role ?? null;
  }

  /** Accounts with a role, by name. */
  withRole(role: Role): { name: string; createdAt: number; lastLoginAt: number | null }[] {
    return (this.db.prepare('SELECT name, created_at, last_login_at FROM accounts WHERE role = ? ORDER BY name').all(role) as { name: string; created_at: number; last_login_at: number | null }[])
      .map((r) => ({ name: r.name, createdAt: r.created_at, lastLoginAt: r.last_login_at }));
  }

  setCharacter(accountId: number, character: string | null): void {
    this.write('last character', () => this.db.prepare('UPDATE accounts SET character = ? WHERE id = ?').run(character, accountId), null);
  }

  issueToken(accountId: number | null, character: string, ttlMs: number): TokenGrant {
    const now = Date.now();
    const grant = { token: nanoid(), accountId, character, expiresAt: now + ttlMs };
    if (now - this.lastPrune > 3600_000) {
      this.lastPrune = now;
      this.write('token prune', () => this.db.prepare('DELETE FROM tokens WHERE expires_at < ?').run(now), null);
    }
    // When it cannot be saved, the token still resumes the session while the server runs (the portal keeps it).
    this.write('token', () => this.db.prepare('INSERT INTO tokens (token, account_id, character, created_at, expires_at) VALUES (?, ?, ?, ?, ?)').run(hashToken(grant.token), accountId, character, now, grant.expiresAt), null);
    return grant;
  }

  resolveToken(token: string): TokenGrant | null {
    // Looked up by hash: the database holds no usable token.
    const row = this.db.prepare('SELECT account_id, character, expires_at FROM tokens WHERE token = ? AND expires_at >= ?').get(hashToken(token), Date.now()) as
      | { account_id: number | null; character: string; expires_at: number }
      | undefined;
    return row ? { token, accountId: row.account_id, character: row.character, expiresAt: row.expires_at } : null;
  }

  revokeToken(token: string): void {
    this.write('token revoke', () => this.db.prepare('DELETE FROM tokens WHERE token = ?').run(hashToken(token)), null);
  }
}
