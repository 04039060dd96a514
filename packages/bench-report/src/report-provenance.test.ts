import { describe, expect, it } from "vitest";
import { extractMainTable, formatReportProvenance, parseReportProvenance } from "./report-provenance.js";
import type { ReportProvenance } from "./render-report.js";

const PROVENANCE: ReportProvenance = {
  benchmarkModel: "claude-sonnet-4-5",
  proposerModel: "claude-opus-4-1",
  effort: "xhigh",
  selectedTasks: ["a", "b"],
  skippedExpensiveTasks: [],
  upstream: "scripted",
  claudeCodeVersion: "2.1.332",
  status: "complete",
  upstreamCanary: null,
};

describe("report provenance file", () => {
  it("round-trips what a sweep writes", () => {
    expect(parseReportProvenance(formatReportProvenance(PROVENANCE))).toEqual({ ok: true, value: PROVENANCE });
  });

  it("refuses non-JSON, a wrong status and unknown fields, naming the field", () => {
    expect(parseReportProvenance("{").ok).toBe(false);
    const status = parseReportProvenance(JSON.stringify({ ...PROVENANCE, status: "fine" }));
    expect(!status.ok && status.error.field).toBe("status");
    const extra = parseReportProvenance(JSON.stringify({ ...PROVENANCE, injected: "<script>" }));
    expect(extra.ok).toBe(false);
  });
});

describe("extractMainTable", () => {
  it("returns the first table only, header to last row", () => {
    const report = ["# t", "", "prose | with a bar", "| a | b |", "|---|---|", "| 1 | 2 |", "", "## next", "| x |", "|---|"].join("\n");
    expect(extractMainTable(report)).toBe("| a | b |\n|---|---|\n| 1 | 2 |\n");
    expect(extractMainTable("# no table\n")).toBeNull();
  });
});
