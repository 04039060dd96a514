// Args: [latency requests=2000] [stream MiB=512] [text bytes per delta event=16384].
// Measures what the metering gateway costs: added latency per request and streamed passthrough throughput, each
// against the same loopback upstream reached directly. Run: `npx tsx bench/gateway.bench.ts` (or `nx run litellm-gateway:bench`).
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, request } from "undici";
import { startGateway } from "../src/start-gateway.js";

const LATENCY_REQUESTS = Number(process.argv[2] ?? 2000);
const THROUGHPUT_MIB = Number(process.argv[3] ?? 512);
const EVENT_TEXT_BYTES = Number(process.argv[4] ?? 16 * 1024);

function frame(data: unknown): string {
  const type = (data as { type: string }).type;
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

const head = frame({ type: "message_start", message: { id: "msg_b", type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } } })
  + frame({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
const deltaFrame = Buffer.from(frame({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "x".repeat(EVENT_TEXT_BYTES) } }));
const tail = frame({ type: "content_block_stop", index: 0 }) + frame({ type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 5 } }) + frame({ type: "message_stop" });
const small = Buffer.from(head + deltaFrame.subarray(0, 0).toString() + frame({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "hi" } }) + tail);
const bigDeltas = Math.ceil((THROUGHPUT_MIB * 1024 * 1024) / deltaFrame.length);

const upstream = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    if (req.url?.includes("big") !== true) {
      res.end(small);
      return;
    }
    res.write(head);
    let sent = 0;
    const pump = (): void => {
      while (sent < bigDeltas) {
        sent += 1;
        if (!res.write(deltaFrame)) {
          res.once("drain", pump);
          return;
        }
      }
      res.end(tail);
    };
    pump();
  });
});
await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", () => resolve()));
const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;

const dir = await mkdtemp(join(tmpdir(), "wfgw-bench-"));
const socketPath = join(dir, "gw.sock");
const gateway = await startGateway({ listen: { socketPath }, upstream: { kind: "scripted", baseUrl: upstreamUrl, apiKey: "sk-bench" }, usageLogPath: join(dir, "usage.jsonl") });
const token = gateway.mintCellToken("bench");
const viaGateway = new Agent({ connect: { socketPath } });
const direct = new Agent();
const body = JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 10, stream: true, messages: [{ role: "user", content: "hi" }] });

async function once(agent: Agent, base: string, path: string): Promise<number> {
  const res = await request(`${base}${path}`, { method: "POST", dispatcher: agent, headers: { "x-api-key": token, "content-type": "application/json" }, body });
  let bytes = 0;
  for await (const chunk of res.body) bytes += (chunk as Buffer).length;
  return bytes;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

async function latency(agent: Agent, base: string): Promise<{ median: number; p95: number }> {
  for (let i = 0; i < 200; i += 1) await once(agent, base, "/v1/messages");
  const samples: number[] = [];
  for (let i = 0; i < LATENCY_REQUESTS; i += 1) {
    const t0 = performance.now();
    await once(agent, base, "/v1/messages");
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  return { median: quantile(samples, 0.5), p95: quantile(samples, 0.95) };
}

async function throughput(agent: Agent, base: string): Promise<number> {
  await once(agent, base, "/v1/messages?big=1");
  const t0 = performance.now();
  const bytes = await once(agent, base, "/v1/messages?big=1");
  return bytes / (1024 * 1024) / ((performance.now() - t0) / 1000);
}

const directLatency = await latency(direct, upstreamUrl);
const gatewayLatency = await latency(viaGateway, "http://localhost");
const directMiBs = await throughput(direct, upstreamUrl);
const gatewayMiBs = await throughput(viaGateway, "http://localhost");
await gateway.flush();
const summary = gateway.summarizeCell("bench");

const fmt = (n: number): string => n.toFixed(3);
process.stdout.write(
  [
    `requests per latency run: ${LATENCY_REQUESTS} (small SSE reply, keep-alive, sequential)`,
    `direct   median ${fmt(directLatency.median)} ms  p95 ${fmt(directLatency.p95)} ms`,
    `gateway  median ${fmt(gatewayLatency.median)} ms  p95 ${fmt(gatewayLatency.p95)} ms  (metered + fsynced rows)`,
    `added    median ${fmt(gatewayLatency.median - directLatency.median)} ms  (goal <= 2 ms)`,
    `throughput over a ${THROUGHPUT_MIB} MiB SSE stream (${EVENT_TEXT_BYTES} B text deltas):`,
    `direct   ${directMiBs.toFixed(0)} MiB/s`,
    `gateway  ${gatewayMiBs.toFixed(0)} MiB/s  (goal >= 200 MB/s)`,
    `rows metered: ${summary.requests}, conformant streams: ${summary.requests - summary.nonConformantStreams}`,
    "",
  ].join("\n"),
);

await viaGateway.close();
await direct.close();
await gateway.close();
await new Promise<void>((resolve) => upstream.close(() => resolve()));
await rm(dir, { recursive: true, force: true });
