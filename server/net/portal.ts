/**
 * The portal: logins, characters and sessions, shared by every transport.
 *
 * A Session is one player's hold on one character (a Driver of the host). It outlives its
 * connection: when the connection drops, the character stays reserved for `linkdeadMs`, and a
 * `resume` with the session's token (or a login to the same account) takes it up again on a new
 * connection. A character has at most one session, and a session at most one connection: a second
 * connection resuming it takes over and the first is closed.
 */
import type { CharacterState, ErrorCode, EventSummary, Role } from './protocol.js';
import type { Driver, Host, Log } from '../host/host.js';
import type { CharacterInfo } from '../host/types.js';
import { AccountError, checkPassword, type Account, type AccountStore } from '../store/accounts.js';
import type { ServerOptions } from './limits.js';
import { FailureBackoff, LogLimiter, waitText, WindowCounter } from './guard.js';

/** What a session needs from the connection that carries it (server/net/connection.ts). */
export interface SessionLink {
  readonly transport: 'websocket' | 'telnet';
  readonly ip: string;
  /** Whether this connection shows states (a websocket does; telnet only when GMCP is on). */
  readonly wantsState: boolean;
  sendEvent(text: string, event: EventSummary): void;
  sendState(state: CharacterState): void;
  sendLook(text: string, state: CharacterState | null): void;
  /** A message from the server, not the game (a tell from another world, a notice). */
  sendSystem(text: string): void;
  /** The session ended or moved to another connection: say why and close, or return to choosing a character. */
  detachedFromSession(reason: string, rechoose: boolean): void;
  readonly idleMs: number;
}

export class Session implements Driver {
  readonly kind = 'human' as const;
  link: SessionLink | null = null;
  linkdeadTimer: NodeJS.Timeout | null = null;
  readonly startedAt = Date.now();
  /** When the player last sent anything on a connection that has since dropped (kept while link-dead). */
  private lastInputAt = this.startedAt;

  constructor(
    private portal: Portal,
    readonly account: Account | null,
    readonly character: { id: string; name: string },
    readonly token: string,
    /** The address that holds this character: the one it started from, then the last to connect to it. */
    public ip: string,
  ) {}

  /** States are computed while a connection wants them (websocket; telnet with GMCP). */
  get wantsState(): boolean {
    return this.link?.wantsState ?? false;
  }

  get role(): Role {
    return this.account?.role ?? 'player';
  }

  perceive(text: string, event: EventSummary): void {
    this.link?.sendEvent(text, event);
  }

  state(state: CharacterState): void {
    this.link?.sendState(state);
  }

  arrive(look: string, state: CharacterState | null): void {
    this.link?.sendLook(look, state);
  }

  /** Time since the player's last input: on the connection, or, while link-dead, on the one that dropped. */
  get idleMs(): number {
    return this.link ? this.link.idleMs : Date.now() - this.lastInputAt;
  }

  /** The connection is going: remember when its player last sent anything. */
  noteDropped(link: SessionLink): void {
    this.lastInputAt = Date.now() - link.idleMs;
  }

  detached(reason: string, rechoose = false): void {
    this.portal.forget(this);
    const link = this.link;
    this.link = null;
    link?.detachedFromSession(reason, rechoose);
  }
}

export type LoginResult =
  | { kind: 'session'; session: Session; resumed: boolean }
  | { kind: 'choose'; account: Account | null; characters: CharacterInfo[]; message?: string }
  | { kind: 'error'; code: ErrorCode; message: string };

/** Password checks (scrypt) one address may have running at once. */
const MAX_CHECKS_PER_IP = 4;

export type AccountChangeResult = { ok: true; message: string } | { ok: false; code: ErrorCode; message: string };

export interface WhoEntry {
  character: string;
  name: string;
  account: string | null;
  role: Role;
  transport: 'websocket' | 'telnet' | null;
  /** Connected now; false while link-dead (the character is held for a resume). */
  connected: boolean;
  idleSeconds: number;
}

/** Match a character among `list` by id, exact name, or unique partial name. */
export function matchCharacter(list: CharacterInfo[], query: string): CharacterInfo | 'ambiguous' | null {
  const q = query.trim().toLowerCase();
  if (!q) return null;
  const byId = list.find((c) => c.id.toLowerCase() === q);
  if (byId) return byId;
  const exact = list.filter((c) => c.name.toLowerCase() === q);
  if (exact.length) return exact[0]!;
  const partial = list.filter((c) => c.name.toLowerCase().includes(q));
  if (partial.length === 1) return partial[0]!;
  return partial.length > 1 ? 'ambiguous' : null;
}

export class Portal {
  private byToken = new Map<string, Session>();
  private byAccount = new Map<number, Session>();
  readonly sessions = new Set<Session>();
  /** Failed logins per account name and per address; registrations per address. */
  private accountFailures: FailureBackoff;
  private addressFailures: FailureBackoff;
  private registrations: WindowCounter;
  /**
   * Password checks running now, by account name and by address: parallel guesses on many connections
   * must not outrun the backoff, which only counts checks that have finished.
   */
  private checking = new Set<string>();
  /** Log lines about one address's refusals and failures: at most 10 a minute (a flood must not flood the log). */
  private addressLog = new LogLimiter(10);
  private checkingFrom = new Map<string, number>();

  constructor(
    readonly host: Host,
    readonly accounts: AccountStore,
    readonly opts: ServerOptions,
    private log: Log,
  ) {
    this.accountFailures = new FailureBackoff(opts.loginFailuresPerAccount, opts.loginBackoffMs, opts.loginBackoffMaxMs);
    this.addressFailures = new FailureBackoff(opts.loginFailuresPerIp, opts.loginBackoffMs, opts.loginBackoffMaxMs);
    this.registrations = new WindowCounter(opts.registrationsPerIpPerHour, 3600_000);
  }

  // ---- logins ------------------------------------------------------------------------------------

  // Every login step names the address it comes from (`from`): limits are per address.

  async guest(from: string, character?: string): Promise<LoginResult> {
    return this.enter(from, null, character);
  }

  async login(from: string, name: string, password: string, character?: string): Promise<LoginResult> {
    const key = name.toLowerCase();
    const waitAccount = this.accountFailures.wait(key);
    const waitAddress = this.addressFailures.wait(from);
    if (waitAccount || waitAddress) {
      // Refused before the password is checked: guessing costs the guesser time, and the server no scrypt.
      const why = waitAddress >= waitAccount ? 'from your address' : 'for this account';
      return { kind: 'error', code: 'login_throttled', message: `Too many failed logins ${why}; try again in ${waitText(Math.max(waitAccount, waitAddress))}.` };
    }
    const account = await this.verifyOnce(from, key, name, password);
    if (account === 'busy') return { kind: 'error', code: 'login_throttled', message: 'Another login to this account, or too many from your address, is being checked; try again in a moment.' };
    if (!account) {
      this.accountFailures.failed(key);
      this.addressFailures.failed(from);
      this.logFrom(from, { account: name.slice(0, 24) }, 'failed login');
      return { kind: 'error', code: 'auth_failed', message: 'Wrong account name or password.' };
    }
    this.accountFailures.succeeded(key);
    const live = this.byAccount.get(account.id);
    if (live && !character) return this.capRefusal(from, live) ?? { kind: 'session', session: live, resumed: true };
    if (live && character) this.endSession(live, 'You logged in again and chose another character.');
    return this.enter(from, account, character ?? account.character ?? undefined, !character);
  }

  async register(from: string, name: string, password: string, character?: string): Promise<LoginResult> {
    const wait = this.registrations.wait(from);
    if (wait) {
      return { kind: 'error', code: 'registration_limited', message: `At most ${this.opts.registrationsPerIpPerHour} accounts may be registered from one address an hour; try again in ${waitText(wait)}.` };
    }
    try {
      const account = await this.accounts.register(name, password);
      this.registrations.add(from);
      this.log.info({ account: account.name, role: account.role, ip: from }, 'account registered');
      return this.enter(from, account, character);
    } catch (err) {
      if (err instanceof AccountError) return { kind: 'error', code: err.code, message: err.message };
      throw err;
    }
  }

  /** At most one password check per account name, and MAX_CHECKS_PER_IP per address, at a time. */
  private async verifyOnce(from: string, key: string, name: string, password: string): Promise<Account | null | 'busy'> {
    const n = this.checkingFrom.get(from) ?? 0;
    if (this.checking.has(key) || n >= MAX_CHECKS_PER_IP) return 'busy';
    this.checking.add(key);
    this.checkingFrom.set(from, n + 1);
    try {
      return await this.accounts.verify(name, password);
    } finally {
      this.checking.delete(key);
      const left = (this.checkingFrom.get(from) ?? 1) - 1;
      if (left > 0) this.checkingFrom.set(from, left);
      else this.checkingFrom.delete(from);
    }
  }

  /** A log line about an address, within its share (see LogLimiter). */
  private logFrom(ip: string, fields: Record<string, unknown>, msg: string): void {
    const { ok, suppressed } = this.addressLog.allow(ip);
    if (ok) this.log.info(suppressed ? { ip, ...fields, suppressedBefore: suppressed } : { ip, ...fields }, msg);
  }

  // ---- account management ---------------------------------------------------------------------

  /** Check the password of an account someone is logged in to, with the backoff of logins. */
  private async recheck(from: string, account: Account, password: string): Promise<AccountChangeResult | null> {
    const key = account.name.toLowerCase();
    const wait = Math.max(this.accountFailures.wait(key), this.addressFailures.wait(from));
    if (wait) return { ok: false, code: 'login_throttled', message: `Too many wrong passwords; try again in ${waitText(wait)}.` };
    const ok = await this.verifyOnce(from, key, account.name, password);
    if (ok === 'busy') return { ok: false, code: 'login_throttled', message: 'Another password check for this account is running; try again in a moment.' };
    if (!ok || ok.id !== account.id) {
      this.accountFailures.failed(key);
      this.addressFailures.failed(from);
      return { ok: false, code: 'auth_failed', message: 'That is not the password of your account.' };
    }
    this.accountFailures.succeeded(key);
    return null;
  }

  /** Change the password; every other resume token of the account stops working. */
  async changePassword(from: string, account: Account, old: string, next: string, keepToken?: string): Promise<AccountChangeResult> {
    const problem = checkPassword(next);
    if (problem) return { ok: false, code: 'bad_name', message: problem };
    const refused = await this.recheck(from, account, old);
    if (refused) return refused;
    try {
      await this.accounts.setPassword(account.id, next, keepToken);
    } catch (err) {
      if (err instanceof AccountError) return { ok: false, code: err.code, message: err.message };
      throw err;
    }
    this.log.info({ account: account.name, ip: from }, 'password changed');
    return { ok: true, message: 'Your password is changed. Other devices must log in again with it.' };
  }

  /** Delete the account for good: its session ends (the character is free), its tokens go. */
  async deleteAccount(from: string, account: Account, password: string): Promise<AccountChangeResult> {
    const refused = await this.recheck(from, account, password);
    if (refused) return refused;
    try {
      if (!this.accounts.deleteAccount(account.id)) return { ok: false, code: 'auth_failed', message: 'That account no longer exists.' };
    } catch (err) {
      if (err instanceof AccountError) return { ok: false, code: err.code, message: err.message };
      throw err;
    }
    const live = this.byAccount.get(account.id);
    if (live) this.endSession(live, null, { revoke: true });
    this.log.info({ account: account.name, ip: from }, 'account deleted');
    return { ok: true, message: `The account ${account.name} is deleted, with its resume tokens. Goodbye.` };
  }

  async resume(from: string, token: string): Promise<LoginResult> {
    const live = this.byToken.get(token);
    if (live) return this.capRefusal(from, live) ?? { kind: 'session', session: live, resumed: true };
    const grant = this.accounts.resolveToken(token);
    if (!grant) return { kind: 'error', code: 'bad_token', message: 'That token is unknown or has expired; log in again.' };
    const account = grant.accountId === null ? null : this.accounts.byId(grant.accountId);
    if (grant.accountId !== null && !account) return { kind: 'error', code: 'bad_token', message: 'The account of that token no longer exists.' };
    if (account) {
      const other = this.byAccount.get(account.id);
      if (other) return this.capRefusal(from, other) ?? { kind: 'session', session: other, resumed: true };
    }
    const all = await this.host.characters();
    const info = all.find((c) => c.id === grant.character);
    if (!info) return { kind: 'choose', account, characters: await this.free(), message: 'Your character is no longer in the world; choose another.' };
    // The same token or account may have resumed meanwhile (two connections racing): take that session over.
    const again = this.byToken.get(token) ?? (account ? this.byAccount.get(account.id) : undefined);
    if (again) return this.capRefusal(from, again) ?? { kind: 'session', session: again, resumed: true };
    if (this.host.driverOf(info.id)) return { kind: 'error', code: 'character_taken', message: `Someone else is playing ${info.name} now.` };
    return this.capRefusal(from) ?? { kind: 'session', session: this.start(from, account, info, token), resumed: true };
  }

  /** Take up `query` (or, when `soft`, try it and fall back to choosing). */
  async enter(from: string, account: Account | null, query?: string, soft = false): Promise<LoginResult> {
    const free = await this.free();
    if (!query) return { kind: 'choose', account, characters: free };
    const found = matchCharacter(free, query);
    if (found && found !== 'ambiguous') {
      // Someone may have taken it while the list was fetched.
      if (this.host.driverOf(found.id)) return { kind: 'error', code: 'character_taken', message: `Someone else is playing ${found.name}; choose another.` };
      return this.capRefusal(from) ?? { kind: 'session', session: this.start(from, account, found), resumed: false };
    }
    if (soft) return { kind: 'choose', account, characters: free };
    if (found === 'ambiguous') return { kind: 'error', code: 'no_such_character', message: `"${query}" matches several characters; use the id.` };
    const any = matchCharacter(await this.host.characters(), query);
    if (any && any !== 'ambiguous') return { kind: 'error', code: 'character_taken', message: `Someone else is playing ${any.name}; choose another.` };
    return { kind: 'error', code: 'no_such_character', message: `There is no character "${query}" in this world.` };
  }

  async free(): Promise<CharacterInfo[]> {
    return this.host.freeCharacters();
  }

  /** Characters held from an address: sessions it started or last connected to, link-dead ones included. */
  heldFrom(ip: string): number {
    let n = 0;
    for (const s of this.sessions) if (s.ip === ip) n++;
    return n;
  }

  /**
   * The refusal when `from` may not take up one more character (a new session, or `session` taken over
   * from another address); null when it may.
   */
  private capRefusal(from: string, session?: Session): LoginResult | null {
    const max = this.opts.maxCharactersPerIp;
    if (max <= 0 || (session && session.ip === from)) return null;
    const held = this.heldFrom(from);
    if (held < max) return null;
    this.logFrom(from, { held, max }, 'refused: characters per address');
    const linkdead = this.opts.linkdeadMs > 0 ? `; a dropped connection keeps its character for ${Math.round(this.opts.linkdeadMs / 1000)} seconds` : '';
    return {
      kind: 'error', code: 'too_many_characters',
      message: `Your address already holds ${held} character${held === 1 ? '' : 's'}, the most one address may (${max}, link-dead ones included${linkdead}). Quit one, or resume it, first.`,
    };
  }

  private start(from: string, account: Account | null, info: CharacterInfo, token?: string): Session {
    const ttl = account ? this.opts.accountTokenMs : this.opts.guestTokenMs;
    const tok = token ?? this.accounts.issueToken(account?.id ?? null, info.id, ttl).token;
    const session = new Session(this, account, { id: info.id, name: info.name }, tok, from);
    this.host.attach(info.id, session);
    this.sessions.add(session);
    this.byToken.set(tok, session);
    if (account) {
      this.byAccount.set(account.id, session);
      this.accounts.setCharacter(account.id, info.id);
    }
    this.log.info({ character: info.id, account: account?.name ?? null }, 'session started');
    return session;
  }

  // ---- session life --------------------------------------------------------------------------------

  /** Attach a connection to a session, closing the connection it had. */
  bind(session: Session, link: SessionLink): void {
    if (session.linkdeadTimer) clearTimeout(session.linkdeadTimer);
    session.linkdeadTimer = null;
    const old = session.link;
    session.link = link;
    session.ip = link.ip;
    this.host.refreshWatch(session.character.id);
    if (old && old !== link) old.detachedFromSession('This character was taken up by a new connection.', false);
  }

  /** The connection dropped: hold the character for a while so the player can resume. */
  unbind(session: Session, link: SessionLink): void {
    if (session.link !== link) return;
    session.noteDropped(link);
    session.link = null;
    if (!this.sessions.has(session)) return;
    this.host.refreshWatch(session.character.id);
    if (this.opts.linkdeadMs <= 0) return this.endSession(session, null);
    session.linkdeadTimer = setTimeout(() => this.endSession(session, null), this.opts.linkdeadMs);
    session.linkdeadTimer.unref();
  }

  /** End a session: the character is free again. `reason` is told to its connection, if any. */
  endSession(session: Session, reason: string | null, opts: { revoke?: boolean } = {}): void {
    if (!this.sessions.has(session)) return;
    this.forget(session);
    this.host.detach(session.character.id, session);
    if (opts.revoke) this.accounts.revokeToken(session.token);
    const link = session.link;
    session.link = null;
    if (link && reason !== null) link.detachedFromSession(reason, false);
    this.log.info({ character: session.character.id, account: session.account?.name ?? null }, 'session ended');
  }

  /** Drop a session from the tables (the host has already let the character go, or is about to). */
  forget(session: Session): void {
    if (session.linkdeadTimer) clearTimeout(session.linkdeadTimer);
    session.linkdeadTimer = null;
    this.sessions.delete(session);
    if (this.byToken.get(session.token) === session) this.byToken.delete(session.token);
    if (session.account && this.byAccount.get(session.account.id) === session) this.byAccount.delete(session.account.id);
  }

  /** Find a session by character id or name, or account name. */
  find(query: string): Session | null {
    const q = query.trim().toLowerCase();
    for (const s of this.sessions) if (s.character.id.toLowerCase() === q || s.character.name.toLowerCase() === q || s.account?.name.toLowerCase() === q) return s;
    return null;
  }

  who(): WhoEntry[] {
    return [...this.sessions].map((s) => ({
      character: s.character.id,
      name: s.character.name,
      account: s.account?.name ?? null,
      role: s.role,
      transport: s.link?.transport ?? null,
      connected: s.link !== null,
      idleSeconds: Math.round(s.idleMs / 1000),
    }));
  }

  /** Server shutdown: tell every connected player, end every session. */
  closeAll(reason: string): void {
    for (const s of [...this.sessions]) this.endSession(s, reason);
  }
}
