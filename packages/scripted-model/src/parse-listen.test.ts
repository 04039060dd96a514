import { describe, expect, it } from "vitest";
import { parseListen } from "./parse-listen.js";

describe("parseListen", () => {
  it.each([
    ["127.0.0.1:0", { host: "127.0.0.1", port: 0 }],
    ["127.0.0.1:8080", { host: "127.0.0.1", port: 8080 }],
    ["unix:/tmp/model.sock", { socketPath: "/tmp/model.sock" }],
  ])("accepts %s", (text, value) => {
    expect(parseListen(text)).toEqual({ ok: true, value });
  });

  it.each(["0.0.0.0:80", "localhost:80", "127.0.0.1", "127.0.0.1:70000", "127.0.0.1:-1", "unix:rel.sock", "[::1]:80", ""])(
    "refuses %j",
    (text) => {
      const result = parseListen(text);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error).toContain(JSON.stringify(text));
    },
  );
});
