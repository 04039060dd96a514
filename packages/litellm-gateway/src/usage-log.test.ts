import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeRow } from "../test/support/rows.js";
import { isGatewayError } from "./errors.js";
import type { UsageRow } from "./schema.js";
import { openUsageLog, readUsageLog } from "./usage-log.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "wfgw-log-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("openUsageLog", () => {
  it("appends canonical JSON lines in call order to a 0600 file and reads them back", async () => {
    const path = join(dir, "usage.jsonl");
    const log = await openUsageLog(path);
    const rows = Array.from({ length: 20 }, (_, i) => makeRow({ gateway_request_id: `wfgw_${i}` }));
    await Promise.all(rows.map((row) => log.append(row)));
    await log.close();
    await log.close();
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const text = await readFile(path, "utf8");
    const firstLine = text.split("\n")[0] ?? "";
    // Canonical: keys sorted.
    expect(firstLine.indexOf('"attempt"')).toBeLessThan(firstLine.indexOf('"cell_id"'));
    expect(await readUsageLog(path)).toEqual(rows);
  });

  it("appends to an existing log instead of truncating it", async () => {
    const path = join(dir, "usage.jsonl");
    for (const id of ["wfgw_a", "wfgw_b"]) {
      const log = await openUsageLog(path);
      await log.append(makeRow({ gateway_request_id: id }));
      await log.close();
    }
    expect((await readUsageLog(path)).map((r) => r.gateway_request_id)).toEqual(["wfgw_a", "wfgw_b"]);
  });

  it("refuses a row that breaks the schema and rejects appends after close", async () => {
    const log = await openUsageLog(join(dir, "usage.jsonl"));
    await expect(log.append({ ...makeRow(), attempt: 0 } as UsageRow)).rejects.toThrow(/invalid usage row/);
    await log.close();
    await expect(log.append(makeRow())).rejects.toMatchObject({ code: "GATEWAY_USAGE_LOG_WRITE_FAILED" });
  });

  it("throws GATEWAY_USAGE_LOG_WRITE_FAILED when the file cannot be opened", async () => {
    const error: unknown = await openUsageLog(join(dir, "missing", "usage.jsonl")).catch((e: unknown) => e);
    expect(isGatewayError(error) && error.code).toBe("GATEWAY_USAGE_LOG_WRITE_FAILED");
  });
});

describe("readUsageLog", () => {
  it("throws GATEWAY_USAGE_LOG_CORRUPT for a torn or foreign line", async () => {
    const path = join(dir, "usage.jsonl");
    await writeFile(path, `${JSON.stringify(makeRow())}\n{"schema_version":1}\n`);
    await expect(readUsageLog(path)).rejects.toMatchObject({ code: "GATEWAY_USAGE_LOG_CORRUPT" });
    await writeFile(path, `${JSON.stringify(makeRow())}\n{"torn":`);
    await expect(readUsageLog(path)).rejects.toMatchObject({ code: "GATEWAY_USAGE_LOG_CORRUPT" });
  });
});
