/**
 * A unit is one worker's part in one episode. Its states follow Mephisto's: `assigned` (playing),
 * `completed` (finished, end form sent, waiting for review), then a reviewer's `approved`,
 * `soft_rejected` (paid, but the worker is not given more units) or `rejected` (not paid);
 * `returned` when the worker left before the end.
 */
export const UNIT_STATUSES = ['assigned', 'completed', 'approved', 'soft_rejected', 'rejected', 'returned'] as const;
export type UnitStatus = (typeof UNIT_STATUSES)[number];

export type Review = 'approved' | 'soft_rejected' | 'rejected';
export const REVIEWS: readonly Review[] = ['approved', 'soft_rejected', 'rejected'];

/** Which moves are allowed: a review only of a completed unit (or a change of mind between reviews). */
export function canMove(from: UnitStatus, to: UnitStatus): boolean {
  if (to === 'completed' || to === 'returned') return from === 'assigned';
  if ((REVIEWS as readonly string[]).includes(to)) return from === 'completed' || (REVIEWS as readonly string[]).includes(from);
  return false;
}

/** Units that count against a worker's limit (everything but returned ones). */
export function counts(status: UnitStatus): boolean {
  return status !== 'returned';
}

/** A worker with a soft-rejected or rejected unit in the task is given no more units. */
export function blocksMoreWork(status: UnitStatus): boolean {
  return status === 'soft_rejected' || status === 'rejected';
}
