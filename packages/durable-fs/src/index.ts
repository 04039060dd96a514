export { DurableFsError, isDurableFsError } from "./errors.js";
export type { DurableFsErrorCode } from "./errors.js";
export { fsyncDirectory, fsyncDirectorySync } from "./fsync.js";
export { writeFileAtomic, writeFileExclusive, writeFileExclusiveSync } from "./write-file.js";
export type { DurableWriteOptions } from "./write-file.js";
export { openJsonlLog, readJsonl } from "./jsonl-log.js";
export type { JsonlContents, JsonlLog, OpenJsonlLogOptions } from "./jsonl-log.js";
export { removeTree } from "./remove-tree.js";
