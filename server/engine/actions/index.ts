/** LIGHT's graph actions (table 12), one rule per file. */
import { drink } from './drink.js';
import { drop } from './drop.js';
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
};

export type { ActionArgs, ActionName, ActionRule, Constraint, Failure } from './rule.js';
export { firstFailure } from './rule.js';
