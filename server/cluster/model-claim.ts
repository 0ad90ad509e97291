/**
 * Which portal of a cluster's world drives its model and scripted characters (`lightmud serve --remote
 * --models`): exactly one should, or each portal would make every model character speak and act once
 * per portal. The portal that drives them answers on `lightmud.world.NAME.models`; a second portal
 * started with --models asks there first and does not start while the first one answers. (Two started
 * in the same instant could both pass the check: start them one at a time.)
 *
 * The models run in that portal's process, over the shard like its players' commands: a player on
 * any portal talks to a model character, the shard tells the driving portal what the character
 * perceived, and the character's reply goes through the shard to everyone. When that portal stops,
 * the model characters stand idle until a portal with --models starts again.
 */
import { BusNoResponderError, BusTimeoutError, type Bus, type BusBody } from '../bus/bus.js';

export const modelsSubject = (world: string) => `lightmud.world.${world}.models`;

export class ModelsClaimedError extends Error {
  constructor(readonly world: string, holder: string) {
    super(`another portal of the world "${world}" drives its model characters (${holder}); give --models to one portal only`);
    this.name = 'ModelsClaimedError';
  }
}

/** Claim the world's model characters for this portal; resolves with the release function, rejects with ModelsClaimedError. */
export async function claimModels(bus: Bus, world: string, portal: string, timeoutMs = 500): Promise<() => void> {
  try {
    const other = await bus.request(modelsSubject(world), { from: portal }, timeoutMs);
    throw new ModelsClaimedError(world, typeof other.portal === 'string' ? `portal ${other.portal.slice(0, 80)}` : 'a portal');
  } catch (err) {
    if (!(err instanceof BusNoResponderError || err instanceof BusTimeoutError)) throw err;
  }
  return bus.serve(modelsSubject(world), (): BusBody => ({ portal }));
}
