import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { listMirrorTargets, type OverlayFile } from "../../src/index.js";

export const OVERLAY: readonly OverlayFile[] = [
  { path: ".claude/skills/gitnexus-review/SKILL.md", bytes: Buffer.from("# review v2\n") },
  { path: ".claude/skills/gitnexus-work/SKILL.md", bytes: Buffer.from("# work v2\n") },
];

/** The GitNexus suite's evaluated skills (the original's fixed CANDIDATE_SKILLS), the skills OVERLAY may replace. */
export const OVERLAY_SKILLS: readonly string[] = ["gitnexus-plan", "gitnexus-review", "gitnexus-work"];

export const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

/** A temp repository holding the base bytes of every mirror target of OVERLAY; returns root and expected bases. */
export function makeOverlayRepo(parent: string = os.tmpdir()): { root: string; bases: Record<string, string>; targets: string[] } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(parent, "promotion-apply-")));
  const bases: Record<string, string> = {};
  const targets: string[] = [];
  for (const file of OVERLAY) {
    for (const target of listMirrorTargets(file.path)) {
      const bytes = Buffer.from(`base of ${target}\n`);
      fs.mkdirSync(path.dirname(path.join(root, target)), { recursive: true });
      fs.writeFileSync(path.join(root, target), bytes, { mode: 0o640 });
      fs.chmodSync(path.join(root, target), 0o640);
      bases[target] = sha256(bytes);
      targets.push(target);
    }
  }
  return { root, bases, targets };
}

/** Every file under root (relative path → utf8 content), for byte-level before/after comparison. */
export function snapshotTree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) out[path.relative(root, full)] = `link:${fs.readlinkSync(full)}`;
      else if (entry.isDirectory()) walk(full);
      else out[path.relative(root, full)] = `${(fs.lstatSync(full).mode & 0o777).toString(8)}:${fs.readFileSync(full, "utf8")}`;
    }
  };
  walk(root);
  return out;
}

/** The bytes every target must hold after a successful apply. */
export function expectedAfterApply(root: string): Record<string, string> {
  const out = snapshotTree(root);
  for (const file of OVERLAY) for (const target of listMirrorTargets(file.path)) out[target] = `640:${Buffer.from(file.bytes).toString("utf8")}`;
  return out;
}
