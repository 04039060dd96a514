/** Most bytes an oracle command may hold (UTF-8); longer commands are refused at declaration time. */
export const MAX_ORACLE_COMMAND_BYTES = 8 * 1024;
/** Most files one oracle may declare; at least one is required. */
export const MAX_ORACLE_FILES = 8;
/** Most bytes one captured oracle file may hold. */
export const MAX_ORACLE_FILE_BYTES = 512 * 1024;
/** Most bytes all captured files of one oracle may hold together. */
export const MAX_ORACLE_TOTAL_BYTES = 2 * 1024 * 1024;
/** Most UTF-8 bytes of a declared `source` or `target` path. */
export const MAX_ORACLE_PATH_BYTES = 240;
/** Environment variable that points the oracle command at the mounted stage. */
export const ORACLE_ENV_VAR = "WFBENCH_ORACLE_ROOT";
/** The original harness's name for the same variable, set too so existing oracle files keep working. */
export const ORACLE_ENV_VAR_ALIAS = "GITNEXUS_BENCH_ORACLE_ROOT";
/** Target the hidden review labels must be staged as in a review task. */
export const REVIEW_LABELS_TARGET = "review-labels.json";
/** Name prefix shared by the workspace mountpoint and the private stage directory. */
export const ORACLE_DIR_PREFIX = ".wfbench-oracle-";
/** The only oracle outcome texts a row may carry (`oracle_output`); the command's own output is never kept. */
export const ORACLE_OUTPUT = Object.freeze({
  passed: "hidden oracle passed",
  failed: "hidden oracle failed",
  unavailable: "hidden oracle snapshot unavailable",
} as const);
/** Most stdout bytes a black-box candidate run may produce; more is the candidate's failure, never truncated data. */
export const MAX_CANDIDATE_STDOUT_BYTES = 1024 * 1024;
/** Environment variable that points a black-box oracle command at the candidate run's captured output. */
export const CANDIDATE_OUTPUT_ENV_VAR = "WFBENCH_CANDIDATE_OUTPUT";
/** In-sandbox directory where the bwrap runner shows a black-box oracle its harness-owned view. */
export const SANDBOX_ORACLE_VIEW = "/oracle";
/** Name prefix of the harness-owned view directory of a black-box oracle run (under the private root). */
export const CANDIDATE_VIEW_PREFIX = ".wfbench-candidate-";
/** Subdirectory of the view holding the candidate run's `stdout` and `status.json`. */
export const CANDIDATE_OUTPUT_DIR = "candidate-output";
