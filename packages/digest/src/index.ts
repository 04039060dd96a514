export { MAX_CANONICAL_JSON_DEPTH, canonicalJson, digestJson, hashFrames, sha256Hex, sha256Stream } from "./sha256.js";
export { compareCodePoints } from "./compare-code-points.js";
export { digestFileTree } from "./digest-file-tree.js";
export type { TreeFile } from "./digest-file-tree.js";
export { DigestError, isDigestError } from "./errors.js";
export type { DigestErrorCode } from "./errors.js";
export { inspectJsonGraph, listJsonGraphDefects } from "./inspect-json-graph.js";
export type { JsonGraphDefect, JsonGraphDefectKind, JsonGraphLimits, JsonPathKey } from "./inspect-json-graph.js";
