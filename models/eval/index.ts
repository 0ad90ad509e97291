/** LIGHT-style evaluation: ParlAI reader, metrics, baselines. See models/README.md. */
export { parseParlai, parseParlaiLine, readParlaiFile, accumulate, ParlaiFormatError, type EvalTask, type EvalExample, type ParlaiMessage } from './parlai.js';
export { scoreExample, summarize, scoresFromOrder, type ExampleScore, type Summary } from './metrics.js';
export { IrRanker, RandomRanker, irWords, mulberry32, STOP_WORDS } from './baselines.js';
export { evaluate, scoresFromRanking, candidatesOf, type EvalResult, type EvalOptions } from './evaluate.js';
