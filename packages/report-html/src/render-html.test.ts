import { describe, expect, it } from "vitest";
import { embedJson, renderHtmlReport, type HtmlReportData } from "./render-html.js";

const HOSTILE = "</script><img src=x onerror=alert(1)><!--";

const data: HtmlReportData = { title: "t", notes: [HOSTILE], cells: [], comparisons: [], review: [], provenance: [["Benchmark model", HOSTILE]] };

describe("renderHtmlReport", () => {
  it("embeds row text as JSON that cannot close its script element and parses back to the same strings", () => {
    const html = renderHtmlReport(data, "window.lib = 1;");
    expect(html).not.toContain("<img");
    expect(html.match(/<\/script>/g)?.length).toBe(3);
    const embedded = /<script type="application\/json" id="wfbench-data">([^<]*)<\/script>/.exec(html)?.[1];
    expect(JSON.parse(embedded ?? "null")).toEqual(data);
    expect(html).toContain("Content-Security-Policy");
    expect(html).toContain("default-src 'none'");
  });

  it("escapes <, > and & and the JavaScript line separators", () => {
    expect(embedJson({ a: "<>&\u2028\u2029" })).toBe('{"a":"\\u003c\\u003e\\u0026\\u2028\\u2029"}');
  });

  it("refuses a chart bundle that would end its element early", () => {
    expect(() => renderHtmlReport(data, "x = '</script>'")).toThrow(/cannot be inlined/);
  });
});
