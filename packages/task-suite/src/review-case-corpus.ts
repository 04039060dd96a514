import { sha256Hex } from "@wfbench/digest";
import { isDurableFsError, readFileUnderRoot } from "@wfbench/durable-fs";
import { formatIssuePath } from "@wfbench/pycompat";
import { z } from "zod";

/** Where a review-case corpus sits in the cell before setup (the original's harness directory, reference §3.2). */
export const REVIEW_CASE_SUITE_DIR = "eval/workflow_bench";
/** The corpus directory under {@link REVIEW_CASE_SUITE_DIR}: the manifest and one patch per case. */
export const REVIEW_CASES_DIR = `${REVIEW_CASE_SUITE_DIR}/review_cases`;
/** The largest patch a case may carry (a historical PR snapshot, not a repository). */
export const MAX_REVIEW_CASE_PATCH_BYTES = 1024 * 1024;
const MAX_MANIFEST_BYTES = 256 * 1024;

/** Where each kind of case takes its labels from (reference §3.2). */
export const REVIEW_CASE_LABEL_SOURCES = ["PR review follow-up commit", "merged final PR snapshot"] as const;

// A case id names its patch (`<id>.patch`), so it must stay one path segment: no "/", "." or ".." alone, no NUL.
const CASE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,119}$/u;
const GIT_SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/u;

/** One case of `review_cases/manifest.json`: a historical PR snapshot and where its labels came from. */
export const ReviewCaseSchema = z.strictObject({
  id: z.string({ error: "must be a string" }).regex(CASE_ID, "must be one path segment of 1-120 letters, digits, '.', '_' or '-', starting with a letter or digit (the patch is <id>.patch)"),
  pr: z.url({ protocol: /^https$/u, error: "must be the pull request's https URL" }),
  base_sha: z.string({ error: "must be a string" }).regex(GIT_SHA, "must be a lower-case 40- or 64-hex commit id"),
  head_sha: z.string({ error: "must be a string" }).regex(GIT_SHA, "must be a lower-case 40- or 64-hex commit id"),
  patch_sha256: z.string({ error: "must be a string" }).regex(/^[0-9a-f]{64}$/u, "must be the sha256 (64 lower-case hex) of the case's patch file"),
  human_verification_commit: z.string({ error: "must be a string" }).regex(GIT_SHA, "must be a lower-case 40- or 64-hex commit id"),
  label_source: z.enum(REVIEW_CASE_LABEL_SOURCES, { error: `must be one of ${REVIEW_CASE_LABEL_SOURCES.map((s) => JSON.stringify(s)).join(", ")}` }),
});
/** A validated review case. */
export type ReviewCase = z.infer<typeof ReviewCaseSchema>;

/** `review_cases/manifest.json` (reference §3.2). Unknown keys are refused. */
export const ReviewCaseManifestSchema = z.strictObject({
  schema_version: z.literal(1, { error: "must be 1" }),
  corpus_version: z.string({ error: "must be a string" }).regex(/^\d{4}-\d{2}-\d{2}$/u, "must be the corpus date, YYYY-MM-DD"),
  cases: z.array(ReviewCaseSchema, { error: "must be a list of case mappings" }).min(1, "must list at least one case").max(256),
});

/** A corpus whose manifest parsed and whose every patch matched its recorded digest. */
export interface ReviewCaseCorpus {
  readonly corpusVersion: string;
  readonly cases: readonly (ReviewCase & { readonly patch: string })[];
}

/** Why a corpus was refused: the manifest field (or patch) at fault and what to do. Bad input, never thrown. */
export interface ReviewCaseCorpusRefusal {
  readonly field: string;
  readonly message: string;
}

/** Result of {@link loadReviewCaseCorpus}. */
export type ReviewCaseCorpusResult = { readonly ok: true; readonly value: ReviewCaseCorpus } | { readonly ok: false; readonly error: ReviewCaseCorpusRefusal };

/** The patch file name of a case: `<id>.patch`, one path segment by the id's rule. */
export function reviewCasePatchName(id: string): string {
  return `${id}.patch`;
}

/**
 * The setup command that turns a clean checkout into a case's snapshot (reference §3.2): apply the copied patch,
 * never letting it touch the corpus directory itself, then remove the corpus so the review session never sees it.
 * Refuses (throws TypeError: a programming error, the loader validated the name) a name that is not one segment.
 */
export function reviewCaseSetupCommand(patchName: string): string {
  if (!CASE_ID.test(patchName.replace(/\.patch$/u, "")) || !patchName.endsWith(".patch")) throw new TypeError(`review case patch ${JSON.stringify(patchName)} is not <id>.patch with a one-segment id`);
  return `git apply --exclude='${REVIEW_CASE_SUITE_DIR}/*' ${REVIEW_CASES_DIR}/${patchName} && rm -rf ${REVIEW_CASE_SUITE_DIR}`;
}

const refuse = (field: string, message: string): ReviewCaseCorpusResult => ({ ok: false, error: { field, message } });

/**
 * Reads `<corpusDir>/manifest.json` and every case's `<id>.patch` without following links (regular files only,
 * bounded sizes), validates the manifest (strict zod, unique ids) and checks each patch's sha256 against
 * `patch_sha256`. A bad manifest, a missing or drifted patch comes back as a refusal naming the field; only an
 * unreadable directory or an I/O failure other than "missing / a link / too large" is thrown.
 */
export async function loadReviewCaseCorpus(corpusDir: string): Promise<ReviewCaseCorpusResult> {
  const read = async (name: string, max: number): Promise<{ ok: true; bytes: Buffer } | { ok: false; message: string }> => {
    try {
      return { ok: true, bytes: (await readFileUnderRoot(corpusDir, name, max)).bytes };
    } catch (error) {
      if (!isDurableFsError(error)) throw error;
      if (error.code === "DURABLE_FS_NOT_FOLLOWED" || error.code === "DURABLE_FS_TOO_LARGE") return { ok: false, message: error.message };
      if (error.errno === "ENOENT") return { ok: false, message: `${corpusDir}/${name} does not exist` };
      throw error;
    }
  };
  const manifestBytes = await read("manifest.json", MAX_MANIFEST_BYTES);
  if (!manifestBytes.ok) return refuse("manifest.json", `${manifestBytes.message}: write review_cases/manifest.json as a regular file`);
  let raw: unknown;
  try {
    raw = JSON.parse(manifestBytes.bytes.toString("utf8"));
  } catch (cause) {
    return refuse("manifest.json", `not valid JSON (${(cause as Error).message})`);
  }
  const parsed = ReviewCaseManifestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.code === "unrecognized_keys" ? [...issue.path, issue.keys[0] ?? ""] : (issue?.path ?? []);
    const message = issue?.code === "unrecognized_keys" ? `unknown key ${JSON.stringify(issue.keys[0])}` : (issue?.message ?? "invalid");
    return refuse(formatIssuePath(path), message);
  }
  const cases: (ReviewCase & { patch: string })[] = [];
  for (const [index, entry] of parsed.data.cases.entries()) {
    if (cases.some((other) => other.id === entry.id)) return refuse(`cases[${index}].id`, `${JSON.stringify(entry.id)} is listed twice`);
    const patch = reviewCasePatchName(entry.id);
    const bytes = await read(patch, MAX_REVIEW_CASE_PATCH_BYTES);
    if (!bytes.ok) return refuse(`cases[${index}].patch_sha256`, `${bytes.message}: put the case's patch at review_cases/${patch}`);
    const actual = sha256Hex(bytes.bytes);
    if (actual !== entry.patch_sha256) return refuse(`cases[${index}].patch_sha256`, `review_cases/${patch} has sha256 ${actual}, the manifest records ${entry.patch_sha256}: restore the patch or record its new digest`);
    cases.push({ ...entry, patch });
  }
  return { ok: true, value: { corpusVersion: parsed.data.corpus_version, cases } };
}
