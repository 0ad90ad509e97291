/** The ranking runtime: load a model directory, encode, retrieve, rerank. See models/README.md. */
export { EMOTES, type EmoteName } from './emotes.js';
export { ModelError, describeError } from './errors.js';
export { lineRole, selectLines, TASK_LINES, type LineRole } from './light-format.js';
export { Tokenizer, type EncodedBatch } from './tokenizer.js';
export { readModelDir, INPUT_ROLES, type ModelDirConfig, type EncoderSpec, type Pooling, type InputRole } from './model-dir.js';
export { BiEncoder, CrossEncoder, normalizeRows, poolTokens } from './encoders.js';
export { DotIndex, dotScores, argsortDesc, quantizeRows, kernelProbe, quantisationBound, INT8_FROM, type Hit, type IndexOptions, type Quantize } from './topk.js';
export { CandidatePool, hashTexts, readEmbeddingCache, writeEmbeddingCache, type PoolOptions } from './pool.js';
export { openSession, inferenceThreadId, type Session, type SessionOptions, type TensorData } from './session.js';
export { ModelRanker, type Ranker, type RankOptions, type ScoredCandidate, type LoadOptions } from './ranker.js';
export { writeModelDir, writeTokenizer, wordPieceTokenizerJson, withSpecialTokens, SPECIAL_TOKENS } from './write-model-dir.js';
export { readUtterances } from './utterances.js';
