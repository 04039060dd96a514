import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createProgressOutput } from "./progress.js";

/** A stream that says it is a terminal and records what was written, escape sequences included. */
function fakeTerminal(): { stream: NodeJS.WriteStream; written: () => string } {
  const stream = new PassThrough() as unknown as NodeJS.WriteStream & PassThrough;
  let text = "";
  stream.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
  Object.assign(stream, {
    isTTY: true,
    columns: 100,
    cursorTo: () => true,
    moveCursor: () => true,
    clearLine: () => true,
    clearScreenDown: () => true,
  });
  return { stream, written: () => text };
}

describe("createProgressOutput", () => {
  it("writes plain lines and no bar when the stream is not a terminal", async () => {
    const stream = new PassThrough() as unknown as NodeJS.WriteStream & PassThrough;
    let text = "";
    stream.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    const out = createProgressOutput(stream);
    out.line("first");
    out.start(3);
    out.advance();
    out.line("second");
    out.stop();
    await new Promise((resolve) => setImmediate(resolve));
    expect(text).toBe("first\nsecond\n");
  });

  it("draws a bar counting finished cells on a terminal, with the lines still printed", async () => {
    const { stream, written } = fakeTerminal();
    const out = createProgressOutput(stream);
    out.start(4);
    out.advance();
    out.advance();
    out.line("[t][baseline][run 0] resolved=True");
    out.stop();
    out.stop();
    await new Promise((resolve) => setImmediate(resolve));
    expect(written()).toContain("[t][baseline][run 0] resolved=True");
    expect(written()).toMatch(/2\/4 cells/u);
  });
});
