/** A small ONNX writer (ModelProto by hand) and the graphs of lightmud's ranking models. */
export { ProtoWriter } from './protobuf.js';
export * from './onnx.js';
export * from './builders.js';
