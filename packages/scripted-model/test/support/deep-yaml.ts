// Builders for hostile scripts: values nested deeper than yaml's parser takes as a literal (it overflows near 780
// levels), reached as the deep-tool-input fixture reaches them, by chaining anchors.

/** `levels` nested flow maps (`{a: {a: … leaf}}`) or lists (`[[… leaf]]`) around `leaf`. */
export function nestFlow(kind: "map" | "seq", levels: number, leaf: string): string {
  return kind === "map" ? `${"{a: ".repeat(levels)}${leaf}${"}".repeat(levels)}` : `${"[".repeat(levels)}${leaf}${"]".repeat(levels)}`;
}

/**
 * A flow-YAML tool input nesting exactly `depth` levels (the input map is level 1): `payload` holds the rest, built
 * from anchors `&r0`, `&r1`… chained `rung` levels at a time and listed under `rungs` first (an alias must follow its
 * anchor). yaml's maxAliasCount doubles an anchor's weight down each link, so six links is the most it admits: with
 * 700-level rungs that reaches about 5,000 levels.
 */
export function deepInputYaml(kind: "map" | "seq", depth: number, rung = 700): string {
  const rungs: string[] = [];
  let remaining = depth - 1;
  let leaf = '"bottom"';
  while (remaining > rung) {
    rungs.push(`&r${rungs.length} ${nestFlow(kind, rung, leaf)}`);
    leaf = `*r${rungs.length - 1}`;
    remaining -= rung;
  }
  return `{ rungs: [${rungs.join(", ")}], payload: ${nestFlow(kind, remaining, leaf)} }`;
}

/** A one-trajectory script (matched by "DEEP-MARK") whose first turn calls Bash with `inputYaml`, then says "done". */
export function scriptWithInput(inputYaml: string): string {
  return [
    "version: 1",
    "trajectories:",
    "  - name: deep",
    "    match: { contains: DEEP-MARK }",
    "    turns:",
    "      - content:",
    "          - type: tool_use",
    "            name: Bash",
    `            input: ${inputYaml}`,
    "        usage: { input_tokens: 1, output_tokens: 1 }",
    "      - content: [{ type: text, text: done }]",
    "        usage: { input_tokens: 1, output_tokens: 1 }",
    "",
  ].join("\n");
}

/**
 * The empty-list alias bomb: `&l0` holds 10 empty lists and each of `levels - 1` more anchors holds 10 aliases of the
 * one before, so the input expands to 10^levels lists. yaml counts an alias of an empty collection as 0, so its
 * maxAliasCount never fires.
 */
export function aliasBombInputYaml(levels: number): string {
  const entries = [`l0: &l0 [${Array<string>(10).fill("[]").join(", ")}]`];
  for (let k = 1; k < levels; k += 1) entries.push(`l${k}: &l${k} [${Array<string>(10).fill(`*l${k - 1}`).join(", ")}]`);
  return `{ ${entries.join(", ")} }`;
}

/** How many arrays/objects deep `value` nests (a scalar is 0); iterative, so any depth can be measured. */
export function nestingDepth(value: unknown): number {
  let deepest = 0;
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (typeof item.value !== "object" || item.value === null) continue;
    const depth = item.depth + 1;
    deepest = Math.max(deepest, depth);
    for (const child of Object.values(item.value)) stack.push({ value: child, depth });
  }
  return deepest;
}
