export { canonicalJson, digestJson, hashFrames, sha256Hex, sha256Stream } from "./sha256.js";
export { compareCodePoints } from "./compare-code-points.js";
export { digestFileTree } from "./digest-file-tree.js";
export type { TreeFile } from "./digest-file-tree.js";
