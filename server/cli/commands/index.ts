/** Every `lightmud` sub-command. Add a command by adding its module here (one line). */
import type { Command } from '../command.js';
import { adminCommand } from './admin.js';
import { backupCommand } from './backup.js';
import { agentKeyCommand } from './agent-key.js';
import { corpusCommand } from './corpus.js';
import { crowdCommand } from './crowd.js';
import { episodesCommand } from './episodes.js';
import { evalCommand } from './eval.js';
import { fitHybridCommand } from './fit-hybrid.js';
import { playCommand } from './play.js';
import { trainCommand } from './train.js';
import { serveCommand } from './serve.js';
import { shardCommand } from './shard.js';
import { validateCommand } from './validate.js';
import { worldCommand } from './world.js';

export const commands: Command[] = [
  playCommand,
  serveCommand,
  shardCommand,
  adminCommand,
  backupCommand,
  corpusCommand,
  trainCommand,
  evalCommand,
  fitHybridCommand,
  episodesCommand,
  crowdCommand,
  validateCommand,
  worldCommand,
  agentKeyCommand,
];
