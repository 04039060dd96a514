import { describe, expect, it } from "vitest";
import { parseServeArgs } from "./parse-serve-args.js";

describe("parseServeArgs", () => {
  it("parses serve with TCP, Unix socket and log", () => {
    expect(parseServeArgs(["serve", "--script", "s.yaml", "--listen", "127.0.0.1:0"])).toEqual({
      ok: true,
      value: { kind: "serve", scriptPath: "s.yaml", listen: { host: "127.0.0.1", port: 0 }, logPath: null },
    });
    expect(parseServeArgs(["serve", "--script=s.yaml", "--listen", "unix:/tmp/m.sock", "--log", "l.jsonl"])).toEqual({
      ok: true,
      value: { kind: "serve", scriptPath: "s.yaml", listen: { socketPath: "/tmp/m.sock" }, logPath: "l.jsonl" },
    });
    expect(parseServeArgs(["--help"])).toEqual({ ok: true, value: { kind: "help" } });
  });

  it.each([{ args: ["serve", "--help"] }, { args: ["serve", "-h"] }, { args: ["serve", "--script", "x.yaml", "--help"] }])(
    "answers $args with the usage",
    ({ args }) => {
      expect(parseServeArgs(args)).toEqual({ ok: true, value: { kind: "help" } });
    },
  );

  it.each([
    { args: ["serve", "--listen", "127.0.0.1:0"], fragment: /--script is required/ },
    { args: ["serve", "--script", "x.yaml"], fragment: /--listen is required/ },
    { args: ["serve", "--script", "x.yaml", "--listen", "0.0.0.0:80"], fragment: /127\.0\.0\.1:PORT.*0\.0\.0\.0:80/ },
    { args: ["serve", "--script", "x.yaml", "--listen", "unix:relative.sock"], fragment: /absolute socket path/ },
    { args: ["serve", "--nope"], fragment: /Unknown option '--nope'/ },
    { args: ["serve", "--script", "a", "--listen", "127.0.0.1:0", "extra"], fragment: /positional/i },
    { args: ["frobnicate"], fragment: /unknown command "frobnicate"/ },
    { args: ["serve", "--script", "a.yaml", "--script", "b.yaml", "--listen", "127.0.0.1:0"], fragment: /--script given more than once/ },
    { args: ["serve", "--script", "a.yaml", "--listen", "127.0.0.1:0", "--listen", "127.0.0.1:1"], fragment: /--listen given more than once/ },
    { args: ["serve", "--script", "", "--listen", "127.0.0.1:0"], fragment: /--script needs a file path/ },
    { args: ["serve", "--script", "a.yaml", "--listen", "127.0.0.1:0", "--log="], fragment: /--log needs a file path/ },
    { args: ["serve", "--script", "--listen", "127.0.0.1:0"], fragment: /argument is ambiguous/ },
    { args: [], fragment: /unknown command ""/ },
  ])("refuses $args", ({ args, fragment }) => {
    const result = parseServeArgs(args);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(fragment);
  });
});
