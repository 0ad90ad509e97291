// The inference thread: holds onnxruntime sessions and runs them off the main event loop.
// (onnxruntime-node's `session.run` returns a promise but computes synchronously on the calling
// thread after a setImmediate, so on the main thread it would stall the server for the whole run.)
// Plain JavaScript so that it loads the same way under node, tsx and vitest.
// Protocol (see session.ts): {id, op: 'load' | 'run' | 'release', ...} -> {id, ok, ...} | {id, ok: false, error}.
import { parentPort, threadId } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-node';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

// Models built in memory (a pool index) arrive as one large buffer that onnxruntime copies; collect
// it right away instead of keeping it until this mostly idle thread next collects garbage.
const BIG = 16 * 1024 * 1024;
function collectGarbage() {
  v8.setFlagsFromString('--expose-gc');
  runInNewContext('gc')();
}

const sessions = new Map();
let nextSid = 1;

function plain(t) {
  return { type: t.type, data: t.data, dims: t.dims };
}

async function handle(m) {
  if (m.op === 'ping') return { threadId };
  if (m.op === 'load') {
    let bytes = m.path !== undefined ? readFileSync(m.path) : m.bytes;
    const big = bytes.byteLength > BIG;
    const session = await ort.InferenceSession.create(bytes, m.options);
    bytes = undefined;
    m.bytes = undefined;
    if (big) collectGarbage();
    const sid = nextSid++;
    sessions.set(sid, session);
    return { sid, inputNames: [...session.inputNames], outputNames: [...session.outputNames] };
  }
  const session = sessions.get(m.sid);
  if (!session) throw new Error(`no session ${m.sid} (released?)`);
  if (m.op === 'run') {
    const feeds = {};
    for (const [name, t] of Object.entries(m.feeds)) feeds[name] = new ort.Tensor(t.type, t.data, t.dims);
    const out = await session.run(feeds, m.fetches);
    const outputs = {};
    for (const [name, t] of Object.entries(out)) outputs[name] = plain(t);
    return { outputs };
  }
  if (m.op === 'release') {
    sessions.delete(m.sid);
    await session.release();
    return {};
  }
  throw new Error(`unknown op ${m.op}`);
}

parentPort.on('message', (m) => {
  handle(m).then(
    (reply) => parentPort.postMessage({ id: m.id, ok: true, ...reply }),
    (err) => parentPort.postMessage({ id: m.id, ok: false, error: err instanceof Error ? err.message : String(err) }),
  );
});
