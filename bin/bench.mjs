#!/usr/bin/env node
// `npm run bench [-- --json] [-- --only NAME]`: runs every bench/*.bench.ts through tsx.
import { register } from 'tsx/esm/api';

register();
const { runBenches } = await import('../bench/run.ts');
process.exitCode = await runBenches(process.argv.slice(2));
