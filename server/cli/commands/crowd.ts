import { resolve } from 'node:path';
import type { Command } from '../command.js';
import { parseOptions, UsageError } from '../command.js';
import { World } from '../../engine/world.js';
import { DEFAULT_DB, openDb } from '../../store/db.js';
import { loadWorld } from '../../world-io/load-world.js';
import { CrowdStore } from '../../crowd/store.js';
import { checkTaskAgainstWorld, readTaskFile, TaskError } from '../../crowd/task.js';
import { exportTask } from '../../crowd/export.js';
import { formatCents, payCsv, PayError, payReport, payTotals } from '../../crowd/pay.js';
import { writeFileSync } from 'node:fs';

const USAGE = [
  'usage: lightmud crowd create FILE [--db FILE]',
  '       lightmud crowd list [--db FILE]',
  '       lightmud crowd pause ID | resume ID | close ID [--db FILE]',
  '       lightmud crowd export ID --out DIR [--db FILE] [--world PATH]',
  '       lightmud crowd pay ID [--out FILE] [--base AMOUNT] [--db FILE]',
  '       lightmud crowd block WORKER [--task ID] [--reason TEXT] | unblock WORKER [--task ID] | blocked [--db FILE]',
  '',
  'Human crowdsourcing tasks (server/crowd). A task file (JSON) names the world, the locations and',
  'personas, the turns and their time limit, the reward text and the pairing rules; `create` checks it',
  '(every problem names the field) and stores it in the server\'s database. Workers open',
  'http://HOST:PORT/crowd/ID?worker=PLATFORM_ID while `lightmud serve --db FILE` runs on the same database.',
  '',
  `  --db FILE     SQLite file of the server (default ${DEFAULT_DB})`,
  '  --out DIR     export: writes DIR/episodes.jsonl (with provenance) and DIR/crowd.{dialogue,action,emote}.txt (ParlAI LIGHT)',
  '  --world PATH  export: the world the episodes are replayed on for the ParlAI files (default: the task\'s world)',
  '  pay           what to pay each worker (CSV): units by review, base pay (the reward for each approved or',
  '                soft-rejected unit; nothing for rejected or returned ones), bonuses, total, completion codes',
  '  --out FILE    pay: write the CSV to FILE (default: standard output)',
  '  --base AMOUNT pay: the reward of one unit (default: the task\'s rewardAmount, else the amount in its reward text)',
  '  WORKER        a platform worker id, or a pseudonym as the review page shows it (w- and 20 hex digits)',
  '  --task ID     block: from this task only (default: every task)',
].join('\n');

function loadTaskWorld(path: string): World {
  return new World(loadWorld(path, { seed: 1 }).state);
}

export const crowdCommand: Command = {
  name: 'crowd',
  summary: 'create, list, pause, close and export human crowdsourcing tasks; block workers',
  usage: USAGE,
  async run(args) {
    const { opts, rest } = parseOptions(args, { db: 'string', out: 'string', world: 'string', task: 'string', reason: 'string', base: 'string' });
    const [sub, arg, ...more] = rest;
    if (!sub) throw new UsageError('which one: create, list, pause, resume, close, export, pay, block, unblock or blocked?');
    if (more.length) throw new UsageError(`unexpected argument "${more[0]}"`);
    const db = openDb(opts.db ?? DEFAULT_DB, { sync: 'normal' });
    try {
      const store = new CrowdStore(db);
      switch (sub) {
        case 'create': {
          if (!arg) throw new UsageError('create needs a task FILE');
          let task;
          try {
            task = readTaskFile(arg);
            const world = loadTaskWorld(task.world);
            checkTaskAgainstWorld(task, new Set(world.rooms().map((r) => r.id)), new Set(world.characters().map((c) => c.id)), arg);
          } catch (err) {
            if (err instanceof TaskError) {
              console.error(`error: ${err.message}`);
              return 1;
            }
            throw new Error(`${arg}: world: ${(err as Error).message}`);
          }
          store.createTask(task);
          console.log(`created task ${task.id} (${task.locations.length} locations, ${task.personas.length} personas, ${task.turns} turns) in ${db.name}`);
          console.log(`worker link: http://HOST:PORT/crowd/${task.id}?worker=PLATFORM_ID   review: http://HOST:PORT/crowd-admin`);
          return 0;
        }
        case 'list': {
          const tasks = store.tasks();
          if (!tasks.length) console.log('no tasks');
          for (const t of tasks) {
            const units = store.units(t.id);
            const by = (s: string) => units.filter((u) => u.status === s).length;
            console.log(`${t.id.padEnd(24)} ${t.status.padEnd(7)} units: ${units.length} (assigned ${by('assigned')}, completed ${by('completed')}, approved ${by('approved')}, soft-rejected ${by('soft_rejected')}, rejected ${by('rejected')}, returned ${by('returned')})  ${t.task.title}`);
          }
          return 0;
        }
        case 'pause':
        case 'resume':
        case 'close': {
          if (!arg) throw new UsageError(`${sub} needs a task ID`);
          const status = sub === 'pause' ? 'paused' : sub === 'close' ? 'closed' : 'open';
          if (!store.setTaskStatus(arg, status)) {
            console.error(`error: no task "${arg}" in ${db.name}`);
            return 1;
          }
          console.log(`task ${arg} is ${status}${status === 'open' ? '' : ': no new pairs start; episodes under way finish'}`);
          return 0;
        }
        case 'export': {
          if (!arg) throw new UsageError('export needs a task ID');
          if (!opts.out) throw new UsageError('export needs --out DIR');
          const row = store.task(arg);
          if (!row) {
            console.error(`error: no task "${arg}" in ${db.name}`);
            return 1;
          }
          const world = loadTaskWorld(opts.world ?? row.task.world);
          const r = exportTask(store, arg, world, resolve(opts.out));
          for (const s of r.skipped) console.log(`skipped in the ParlAI files: ${s.episode}: ${s.reason}`);
          console.log(`exported ${r.episodes} approved episodes (${r.turns} turns): ${r.files.join(', ')}`);
          return 0;
        }
        case 'pay': {
          if (!arg) throw new UsageError('pay needs a task ID');
          const row = store.task(arg);
          if (!row) {
            console.error(`error: no task "${arg}" in ${db.name}`);
            return 1;
          }
          const base = opts.base === undefined ? undefined : Number(opts.base);
          if (base !== undefined && !(base >= 0 && base <= 100000)) throw new UsageError(`--base must be an amount from 0 to 100000, not "${opts.base}"`);
          let report;
          try {
            report = payReport(row.task, store.units(arg), base);
          } catch (err) {
            if (!(err instanceof PayError)) throw err;
            console.error(`error: ${err.message}`);
            return 1;
          }
          const csv = payCsv(report);
          const t = payTotals(report);
          const summary = `${t.workers} workers: base ${formatCents(t.base)} + bonuses ${formatCents(t.bonuses)} = ${formatCents(t.total)} ${report.currency} (${formatCents(report.rewardCents)} a paid unit, from ${report.rewardFrom})${t.awaitingReview ? `; ${t.awaitingReview} units await review` : ''}`;
          if (opts.out) {
            writeFileSync(resolve(opts.out), csv);
            console.log(`wrote ${resolve(opts.out)}: ${summary}`);
          } else {
            process.stdout.write(csv);
            console.error(summary);
          }
          return 0;
        }
        case 'block':
        case 'unblock': {
          if (!arg) throw new UsageError(`${sub} needs a WORKER (a platform id or a pseudonym)`);
          const worker = store.workerRef(arg);
          const task = opts.task ?? '*';
          if (task !== '*' && !store.task(task)) {
            console.error(`error: no task "${task}" in ${db.name}`);
            return 1;
          }
          if (sub === 'block') store.listWorker('block', task, worker, opts.reason ?? null);
          else if (!store.unlistWorker('block', task, worker)) {
            console.error(`error: ${worker} is not blocked from ${task === '*' ? 'every task' : task}`);
            return 1;
          }
          console.log(`${worker} is ${sub === 'block' ? 'blocked from' : 'no longer blocked from'} ${task === '*' ? 'every task' : `task ${task}`}`);
          return 0;
        }
        case 'blocked': {
          const list = store.blocked();
          if (!list.length) console.log('nobody is blocked');
          for (const b of list) console.log(`${b.worker}  ${b.task === '*' ? 'every task' : b.task}  ${new Date(b.at).toISOString()}${b.reason ? `  ${b.reason}` : ''}`);
          return 0;
        }
        default:
          throw new UsageError(`unknown crowd command "${sub}" (create, list, pause, resume, close, export, pay, block, unblock, blocked)`);
      }
    } finally {
      db.close();
    }
  },
};
