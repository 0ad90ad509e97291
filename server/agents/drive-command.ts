/**
 * The admin command `@drive WHO model|idle|script FILE` (and `@drive list`), for the server's
 * command table: who drives a character, switched at run time.
 */
import type { AgentKind, AgentManager } from './manager.js';

export const DRIVE_HELP = '  @drive WHO model|idle|script FILE   who drives a character (not one a person plays); @drive list';

/**
 * The admin command `@drive WHO model|idle|script FILE` (and `@drive list`), for the server's
 * command table: switches a character's policy at run time, starting the agents if none run yet.
 */
export async function driveCommand(host: { agents: AgentManager | null; startAgents(opts: object, always: boolean): Promise<AgentManager | null> }, args: string): Promise<string> {
  const words = args.trim().split(/\s+/).filter(Boolean);
  const agents = host.agents ?? (await host.startAgents({}, true));
  if (!agents) return 'The agents could not start; see the server log.';
  if (words[0] === 'list' || !words.length) {
    const list = agents.list();
    return list.length ? list.map((d) => `  ${d.id.padEnd(28)} ${d.kind}${d.file ? ` ${d.file}` : ''}`).join('\n') : 'No character is driven by a model or a script.';
  }
  const kindAt = words.findIndex((w) => ['model', 'idle', 'script', 'scripted'].includes(w.toLowerCase()));
  if (kindAt < 1) return 'Usage: @drive WHO model|idle|script FILE, or @drive list.';
  const who = words.slice(0, kindAt).join(' ');
  const kind = words[kindAt]!.toLowerCase();
  const file = words.slice(kindAt + 1).join(' ');
  if (kind.startsWith('script')) {
    if (!file) return 'Usage: @drive WHO script FILE (a file of commands on the server).';
    return agents.setPolicy(who, 'scripted', { script: file });
  }
  return agents.setPolicy(who, kind as AgentKind);
}
