/**
 * Who takes a seat when no worker does: a model character (the bundled ranking policy, or any
 * Policy) or a script (fixed lines, for tests and pilots). A partner decides one turn at a time,
 * from the host's view of its character, and says which it is, for each turn's provenance.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { Host } from '../host/host.js';
import type { HistoryEntry } from '../agents/context.js';
import type { Policy } from '../agents/policy.js';
import type { Provenance } from './store.js';

export interface TurnPlan {
  say: string;
  /** One graph action (canonical text) or none. */
  action?: string;
  /** One of the 22 emotes (only when there is no action). */
  emote?: string;
}

export interface PartnerContext {
  host: Host;
  character: string;
  /** The other character of the episode. */
  partner: string;
  /** The episode so far, oldest first, from this character's side. */
  history: HistoryEntry[];
  /** The partner's last line, if any. */
  heard?: { from: string; text: string };
  turn: number;
}

export interface Partner {
  readonly provenance: Provenance;
  /** 'model' or 'script': shown to workers as a marked character. */
  readonly kind: 'model' | 'script';
  takeTurn(ctx: PartnerContext): Promise<TurnPlan>;
}

/** Says its lines in order (the last one again when they run out), with an optional emote each. */
export class ScriptPartner implements Partner {
  readonly kind = 'script' as const;
  readonly provenance: Provenance;
  constructor(private lines: TurnPlan[], name = 'script') {
    if (!lines.length) throw new Error('a script partner needs at least one line');
    this.provenance = { kind: 'script', script: name };
  }

  async takeTurn(ctx: PartnerContext): Promise<TurnPlan> {
    const mine = ctx.history.filter((h) => h.speaker === 'self' && h.kind === 'say').length;
    return this.lines[Math.min(mine, this.lines.length - 1)]!;
  }
}

/** The model policy of server/agents: grounded view from the host, one decision, at most one action or emote. */
export class ModelPartner implements Partner {
  readonly kind = 'model' as const;
  readonly provenance: Provenance;
  private variant = 1;
  constructor(private policy: () => Promise<Policy>, model: string, version: string) {
    this.provenance = { kind: 'model', model, version };
  }

  async takeTurn(ctx: PartnerContext): Promise<TurnPlan> {
    const view = await ctx.host.agentView(ctx.character, { heard: ctx.heard, partner: ctx.partner });
    if (!view) return { say: '' };
    const policy = await this.policy();
    const [choice] = await policy.decide([{ view, history: ctx.history, variant: this.variant++ }]);
    if (!choice) return { say: '' };
    const plan: TurnPlan = { say: choice.say };
    if (choice.actions[0]) plan.action = choice.actions[0];
    else if (choice.emote) plan.emote = choice.emote;
    return plan;
  }
}

/**
 * The bundled model (or $LIGHTMUD_MODEL) as a partner, loaded the first time a seat needs it and
 * shared by every seat. Provenance names the model directory and a hash of its weights.
 */
export function bundledModelPartner(opts: { modelDir?: string; shared?: () => Promise<Policy> | null } = {}): PartnerFactory {
  const modelDir = opts.modelDir;
  let loading: Promise<Policy> | null = null;
  let provenance: { model: string; version: string } | null = null;
  const load = async (): Promise<Policy> => {
    // The policy the world's model characters already use, when there is one (one copy in memory).
    loading ??= opts.shared?.() ?? (async () => {
      const { loadPolicy } = await import('../agents/load.js');
      const { policy } = await loadPolicy(modelDir ? { modelDir } : {});
      return policy;
    })();
    return loading;
  };
  const factory: PartnerFactory = () => {
    provenance ??= modelIdentity(modelDir);
    return new ModelPartner(load, provenance.model, provenance.version);
  };
  // Loading takes seconds (about 12 s on 2 cores the first time): start when the first worker arrives.
  factory.warm = () => void load().catch(() => {});
  return factory;
}

/** Makes a partner for a seat; `warm` (optional) gets it ready before the first one is needed. */
export type PartnerFactory = (() => Partner) & { warm?: () => void };

/** A model's name (its directory) and version (the first 12 hex digits of the SHA-256 of its bi-encoder and hybrid weights). */
export function modelIdentity(modelDir?: string): { model: string; version: string } {
  const dir = resolve(modelDir ?? process.env.LIGHTMUD_MODEL ?? new URL('../../models/default', import.meta.url).pathname);
  const h = createHash('sha256');
  for (const f of ['onnx/bi_encoder.onnx', 'hybrid.json']) {
    const p = join(dir, f);
    if (existsSync(p)) h.update(readFileSync(p));
  }
  return { model: `lightmud:${basename(dir)}`, version: h.digest('hex').slice(0, 12) };
}
