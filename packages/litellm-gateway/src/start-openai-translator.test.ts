import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, request } from "undici";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startOpenAiTranslator } from "./start-openai-translator.js";
import type { OpenAiTranslator } from "./start-openai-translator.js";

const KEY = "sk-proj-unit-openai-key-0123456789abcdef";
const MIB = Buffer.alloc(1024 * 1024, 0x20);

let dir: string;
let provider: Server;
let answer: (res: ServerResponse) => void;
let translator: OpenAiTranslator;
let client: Agent;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "wfgw-oai-unit-"));
  provider = createServer((req, res) => {
    req.resume();
    req.on("end", () => answer(res));
  });
  await new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", () => resolve()));
  const socketPath = join(dir, "translator.sock");
  translator = await startOpenAiTranslator({ socketPath, baseUrl: `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`, apiKey: KEY });
  client = new Agent({ connect: { socketPath } });
});

afterEach(async () => {
  await client.destroy();
  await translator.close();
  provider.closeAllConnections();
  await new Promise<void>((resolve) => provider.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

/** A hostile provider: `status`, then 40 MiB of body that never ends. */
function endlessBody(status: number): (res: ServerResponse) => void {
  return (res) => {
    res.writeHead(status, { "content-type": "application/json" });
    let sent = 0;
    const more = (): void => {
      while (sent < 40 && res.write(MIB)) sent += 1;
      if (sent < 40) res.once("drain", () => {
        sent += 1;
        more();
      });
    };
    more();
  };
}

async function ask(stream: boolean) {
  const res = await request("http://localhost/v1/messages", {
    method: "POST",
    dispatcher: client,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-4.1-mini", max_tokens: 5, stream, messages: [{ role: "user", content: "hi" }] }),
  });
  return { status: res.statusCode, text: await res.body.text() };
}

describe("startOpenAiTranslator (unit)", () => {
  it.each([
    ["a non-streaming completion", 200, 502],
    ["an error body", 500, 500],
  ])("answers without holding %s that never ends (bounded read)", async (_name, status, expected) => {
    answer = endlessBody(status);
    const reply = await Promise.race([ask(false), new Promise<null>((resolve) => setTimeout(() => resolve(null), 10_000))]);
    expect(reply?.status).toBe(expected);
    expect(reply?.text).not.toContain(KEY);
  }, 20_000);
});
