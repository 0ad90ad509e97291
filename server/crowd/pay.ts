/**
 * What to pay, from the review decisions: per worker pseudonym, the units and how they were reviewed,
 * the base pay (the task's reward for each paid unit), the bonuses and the total, as CSV.
 *
 * Mephisto's rules: an approved or soft-rejected unit is paid the reward (soft-rejected: paid, but the
 * worker gets no more units); a rejected unit is paid nothing, its bonus included; a returned unit
 * (the worker left) is paid nothing; a completed unit not yet reviewed is counted as awaiting review
 * and paid nothing yet. Amounts are summed in cents, so 0.1 + 0.2 is 0.30.
 *
 * The reward per unit is the task's `rewardAmount` when it has one, else the first amount with a
 * currency in its `reward` text ("$1.50 for about 8 minutes": 1.50; "about 8 minutes": none).
 * Payment happens on the platform: the completion codes column matches a row to the platform's
 * submissions (only pseudonyms are stored, never the platform's worker ids).
 */
import type { CrowdTask } from './task.js';
import type { UnitRow } from './store.js';

export interface PayRow {
  worker: string;
  units: number;
  approved: number;
  softRejected: number;
  rejected: number;
  awaitingReview: number;
  /** Assigned: being played now. */
  inProgress: number;
  returned: number;
  /** In cents. */
  base: number;
  bonuses: number;
  total: number;
  codes: string[];
}

export interface PayReport {
  task: string;
  /** The reward of one paid unit, in cents, and where it came from. */
  rewardCents: number;
  rewardFrom: "the task's rewardAmount" | "the task's reward text" | 'the base pay given';
  currency: string;
  rows: PayRow[];
}

const SYMBOLS: Record<string, string> = { $: 'USD', '£': 'GBP', '€': 'EUR', '¥': 'JPY' };

/**
 * The first amount with a currency in a reward text: `$1.50`, `£2`, `1.50 USD`, `EUR 0.80`, `0,80 €`.
 * Null when the text names none (a bare number is a count of minutes as often as money).
 */
export function rewardFromText(text: string): { amount: number; currency: string } | null {
  const num = String.raw`(\d+(?:[.,]\d{1,2})?)`;
  const sym = String.raw`([$£€¥])`;
  const code = String.raw`\b([A-Z]{3})\b`;
  const forms: [RegExp, (m: RegExpExecArray) => { n: string; c: string }][] = [
    [new RegExp(`${sym}\\s?${num}`), (m) => ({ n: m[2]!, c: SYMBOLS[m[1]!]! })],
    [new RegExp(`${num}\\s?${sym}`), (m) => ({ n: m[1]!, c: SYMBOLS[m[2]!]! })],
    [new RegExp(`${code}\\s?${num}`), (m) => ({ n: m[2]!, c: m[1]! })],
    [new RegExp(`${num}\\s?${code}`), (m) => ({ n: m[1]!, c: m[2]! })],
  ];
  let best: { at: number; amount: number; currency: string } | null = null;
  for (const [re, read] of forms) {
    const m = re.exec(text);
    if (!m) continue;
    const { n, c } = read(m);
    if (!best || m.index < best.at) best = { at: m.index, amount: Number(n.replace(',', '.')), currency: c };
  }
  return best ? { amount: best.amount, currency: best.currency } : null;
}

export class PayError extends Error {}

const cents = (x: number) => Math.round(x * 100);

/** The pay of each worker of a task; `base` (an amount) overrides the task's reward. */
export function payReport(task: CrowdTask, units: UnitRow[], base?: number): PayReport {
  let rewardCents: number;
  let rewardFrom: PayReport['rewardFrom'];
  let currency = rewardFromText(task.reward)?.currency ?? '';
  if (base !== undefined) {
    if (!(base >= 0) || !Number.isFinite(base)) throw new PayError('the base pay must be an amount of 0 or more');
    rewardCents = cents(base);
    rewardFrom = 'the base pay given';
  } else if (task.rewardAmount !== undefined) {
    rewardCents = cents(task.rewardAmount);
    rewardFrom = "the task's rewardAmount";
  } else {
    const r = rewardFromText(task.reward);
    if (!r) throw new PayError(`the reward of task ${task.id} ("${task.reward}") names no amount with a currency: give the task a rewardAmount, or the base pay`);
    rewardCents = cents(r.amount);
    rewardFrom = "the task's reward text";
    currency = r.currency;
  }
  const byWorker = new Map<string, UnitRow[]>();
  for (const u of units) byWorker.set(u.worker, [...(byWorker.get(u.worker) ?? []), u]);
  const rows = [...byWorker].map(([worker, mine]): PayRow => {
    const n = (s: UnitRow['status']) => mine.filter((u) => u.status === s).length;
    const paid = mine.filter((u) => u.status === 'approved' || u.status === 'soft_rejected');
    const b = paid.length * rewardCents;
    const bonuses = paid.reduce((a, u) => a + cents(u.bonus ?? 0), 0);
    return {
      worker, units: mine.length, approved: n('approved'), softRejected: n('soft_rejected'), rejected: n('rejected'),
      awaitingReview: n('completed'), inProgress: n('assigned'), returned: n('returned'), base: b, bonuses, total: b + bonuses,
      codes: mine.map((u) => u.code).filter((c): c is string => !!c),
    };
  });
  rows.sort((a, b) => b.total - a.total || a.worker.localeCompare(b.worker));
  return { task: task.id, rewardCents, rewardFrom, currency, rows };
}

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, a quote, CR or LF, or starts or ends with
 * spaces; quotes doubled. Text that a spreadsheet would run as a formula (=, +, -, @, tab, CR first)
 * is prefixed with an apostrophe (OWASP's advice); numbers are written as they are.
 */
export function csvField(v: string | number): string {
  if (typeof v === 'number') return String(v);
  let s = v;
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]|^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvLine(fields: (string | number)[]): string {
  return fields.map(csvField).join(',') + '\r\n';
}

const money = (c: number) => (c / 100).toFixed(2);

export const PAY_COLUMNS = ['task', 'worker', 'units', 'approved', 'soft_rejected', 'rejected', 'awaiting_review', 'in_progress', 'returned', 'base_pay', 'bonuses', 'total', 'currency', 'completion_codes'];

/** The report as CSV (header first; CRLF line ends, as RFC 4180 has them). */
export function payCsv(r: PayReport): string {
  return csvLine(PAY_COLUMNS) + r.rows.map((w) => csvLine([
    r.task, w.worker, w.units, w.approved, w.softRejected, w.rejected, w.awaitingReview, w.inProgress, w.returned,
    money(w.base), money(w.bonuses), money(w.total), r.currency, w.codes.join(' '),
  ])).join('');
}

/** Totals over every worker, in cents. */
export function payTotals(r: PayReport): { workers: number; base: number; bonuses: number; total: number; awaitingReview: number } {
  return r.rows.reduce((a, w) => ({ workers: a.workers + 1, base: a.base + w.base, bonuses: a.bonuses + w.bonuses, total: a.total + w.total, awaitingReview: a.awaitingReview + w.awaitingReview }), { workers: 0, base: 0, bonuses: 0, total: 0, awaitingReview: 0 });
}

export { money as formatCents };
