import { describe, expect, it } from "vitest";
import { REVIEW_FINDING_KEYS, SANDBOX_REVIEW_OUTPUT_PATH } from "./constants.js";
import { buildReviewLabelsJsonSchema, buildReviewOutputJsonSchema } from "./json-schema.js";
import { parseReviewOutput } from "./parse-review-output.js";
import { buildReviewPromptContract, REVIEW_PROMPT_CONTRACT } from "./prompt-contract.js";
import { ReviewLabelsFileSchema, ReviewOutputFileSchema, ReviewOutputSchema } from "./schema.js";

const sample = {
  schema_version: 1,
  verdict: "request_changes",
  findings: [
    {
      id: "f1", severity: "critical", path: "src/a.ts", line: 2, end_line: 4, category: "security",
      scenario: "s", evidence: "e", recommendation: "r", blocking: true,
    },
  ],
};

describe("review prompt contract", () => {
  it("names the sandbox output path exactly once and never a workspace path", () => {
    expect(REVIEW_PROMPT_CONTRACT.split(SANDBOX_REVIEW_OUTPUT_PATH)).toHaveLength(2);
    expect(REVIEW_PROMPT_CONTRACT).not.toContain("/workspace/review-output.json");
    expect(buildReviewPromptContract("/tmp/x/review-output.json")).toContain("/tmp/x/review-output.json");
  });

  it("shows the one-line shape and every finding key, and forbids Markdown and other edits", () => {
    expect(REVIEW_PROMPT_CONTRACT).toContain('{"schema_version":1,"verdict":"approve|comment|request_changes","findings":[');
    for (const key of REVIEW_FINDING_KEYS) expect(REVIEW_PROMPT_CONTRACT).toContain(`"${key}"`);
    expect(REVIEW_PROMPT_CONTRACT).toMatch(/UTF-8 JSON/);
    expect(REVIEW_PROMPT_CONTRACT).toMatch(/"approve" with an empty findings list/);
    expect(REVIEW_PROMPT_CONTRACT).toMatch(/no Markdown/);
    expect(REVIEW_PROMPT_CONTRACT).toMatch(/edit no other file/);
  });

  it("describes a shape the parser accepts once placeholders are filled", () => {
    const line = REVIEW_PROMPT_CONTRACT.split("\n").find((l) => l.startsWith('{"schema_version"')) ?? "";
    const filled = line
      .replace(/\.$/, "")
      .replace("approve|comment|request_changes", "comment")
      .replace("critical|high|medium|low", "low")
      .replaceAll('"…"', '"x"');
    expect(parseReviewOutput(new TextEncoder().encode(filled))).toMatchObject({ ok: true });
  });
});

describe("zod schemas", () => {
  it("accept canonical files and refuse non-canonical ones", () => {
    expect(ReviewOutputFileSchema.safeParse(sample).success).toBe(true);
    expect(ReviewOutputFileSchema.safeParse({ ...sample, extra: 1 }).success).toBe(false);
    expect(ReviewOutputFileSchema.safeParse({ ...sample, findings: [{ ...sample.findings[0], line: 1.5 }] }).success).toBe(false);
    expect(ReviewOutputFileSchema.safeParse({ ...sample, findings: [{ ...sample.findings[0], end_line: 1 }] }).success).toBe(false);
    expect(ReviewLabelsFileSchema.safeParse({ schema_version: 1, findings: [] }).success).toBe(true);
    expect(ReviewLabelsFileSchema.safeParse({ schema_version: 1, findings: [{ id: "x" }] }).success).toBe(false);
  });

  it("refuse every field value the parser refuses: Python-blank text and escaping paths", () => {
    const withField = (key: string, value: unknown) => ({ ...sample, findings: [{ ...sample.findings[0], [key]: value }] });
    const refused: [string, unknown][] = [
      ["id", "\u001c"],
      ["evidence", "\u0085 \u001f"],
      ["path", "../etc/passwd"],
      ["path", "/workspace/src/a.ts"],
      ["path", "src/../.."],
      ["path", "..\\x.ts"],
    ];
    for (const [key, value] of refused) {
      const input = withField(key, value);
      expect([key, value, parseReviewOutput(new TextEncoder().encode(JSON.stringify(input))).ok]).toEqual([key, value, false]);
      expect([key, value, ReviewOutputFileSchema.safeParse(input).success]).toEqual([key, value, false]);
    }
    const label = { id: "l", severity: "high", path: "../x.ts", line_start: 1, line_end: 1, category: "c" };
    expect(ReviewLabelsFileSchema.safeParse({ schema_version: 1, findings: [label] }).success).toBe(false);
  });

  it("describe the parser's output, including the coherence rules", () => {
    const parsed = parseReviewOutput(new TextEncoder().encode(JSON.stringify(sample)));
    expect(parsed.ok && ReviewOutputSchema.safeParse(parsed.value).success).toBe(true);
    expect(ReviewOutputSchema.safeParse({ ...sample, verdict: "approve" }).success).toBe(false);
    expect(ReviewOutputSchema.safeParse({ ...sample, findings: [{ ...sample.findings[0], path: "./src/a.ts" }] }).success).toBe(false);
  });
});

describe("JSON Schema export", () => {
  it("exports review-output.json with closed objects, enums, integer lines and the findings cap", () => {
    const schema = buildReviewOutputJsonSchema() as {
      $schema: string; additionalProperties: boolean; required: string[];
      properties: { verdict: { enum: string[] }; findings: { maxItems: number; items: { additionalProperties: boolean; required: string[]; properties: Record<string, { type?: string; minimum?: number; enum?: string[] }> } } };
    };
    expect(schema.$schema).toContain("2020-12");
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required.sort()).toEqual(["findings", "schema_version", "verdict"]);
    expect(schema.properties.verdict.enum).toEqual(["approve", "comment", "request_changes"]);
    expect(schema.properties.findings.maxItems).toBe(100);
    const item = schema.properties.findings.items;
    expect(item.additionalProperties).toBe(false);
    expect(item.required.sort()).toEqual([...REVIEW_FINDING_KEYS].sort());
    expect(item.properties["line"]).toMatchObject({ type: "integer", minimum: 1 });
    expect(item.properties["blocking"]).toMatchObject({ type: "boolean" });
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
  });

  it("exports the labels file schema", () => {
    const schema = buildReviewLabelsJsonSchema() as { properties: { findings: { items: { required: string[] } } } };
    expect(schema.properties.findings.items.required.sort()).toEqual(["category", "id", "line_end", "line_start", "path", "severity"]);
  });
});
