export { isSanitizerError } from "./errors.js";
export type { GitRunner } from "./git-runner.js";
export { createHostGitRunner } from "./host-git-runner.js";
export { createSandboxedGitRunner } from "./sandboxed-git-runner.js";
export type { Template } from "./prepare-template.js";
export { createTemplateCache } from "./template-cache.js";
export { materializeCell } from "./materialize-cell.js";
export { removeTree } from "./remove-tree.js";
export { SETTINGS_STUB_CONTENT, SETTINGS_STUB_PATHS } from "./schema.js";
