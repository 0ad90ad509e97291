/** LIGHT's graph actions (table 12), and its other mechanics (marked `extra`), one rule per file. */
import { block } from './block.js';
import { drink } from './drink.js';
import { drop } from './drop.js';
import { equip } from './equip.js';
import { examine } from './examine.js';
import { follow } from './follow.js';
import { ingest } from './ingest.js';
import { point } from './point.js';
import { unblock } from './unblock.js';
import { use } from './use.js';
import { unfollow } from './unfollow.js';
import { wait } from './wait.js';
import { eat } from './eat.js';
import { get } from './get.js';
import { getFrom } from './get-from.js';
import { give } from './give.js';
import { hit } from './hit.js';
import { hug } from './hug.js';
import { put } from './put.js';
import { remove } from './remove.js';
import type { ActionName, ActionRule } from './rule.js';
import { steal } from './steal.js';
import { wear } from './wear.js';
import { wield } from './wield.js';

export const ACTIONS: Record<ActionName, ActionRule> = {
  get, get_from: getFrom, drop, put, give, steal, wear, wield, remove, eat, drink, hit, hug,
  equip, ingest, follow, unfollow, block, unblock, point, wait, examine, use,
};

export type { ActionArgs, ActionName, ActionRule, Constraint, Failure, Slot } from './rule.js';
export { firstFailure } from './rule.js';
