import { createServer } from "node:http";
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One scripted upstream reply. */
export type Reply =
  | { kind: "sse"; body: string; status?: number; chunkSize?: number; delayMs?: number; headers?: Record<string, string> }
  | { kind: "json"; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: "hangup-after"; body: string }
  | { kind: "stall-after"; body: string };

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Loopback upstream for tests: answers each request with the next scripted reply and records what it saw. */
export interface TestUpstream {
  url: string;
  seen: SeenRequest[];
  enqueue(...replies: Reply[]): void;
  close(): Promise<void>;
}

async function sendSse(res: ServerResponse, reply: Extract<Reply, { kind: "sse" }>): Promise<void> {
  res.writeHead(reply.status ?? 200, { "content-type": "text/event-stream", "request-id": "req_upstream", ...reply.headers });
  const size = reply.chunkSize ?? reply.body.length;
  const bytes = Buffer.from(reply.body);
  for (let i = 0; i < bytes.length; i += size) {
    res.write(bytes.subarray(i, i + size));
    if (reply.delayMs !== undefined) await new Promise((r) => setTimeout(r, reply.delayMs));
  }
  res.end();
}

export async function startTestUpstream(): Promise<TestUpstream> {
  const queue: Reply[] = [];
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      const reply = queue.shift();
      if (reply === undefined) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ type: "error", error: { type: "api_error", message: "no scripted reply" } }));
        return;
      }
      switch (reply.kind) {
        case "sse":
          void sendSse(res, reply);
          return;
        case "json":
          res.writeHead(reply.status, { "content-type": "application/json", "request-id": "req_upstream", ...reply.headers });
          res.end(JSON.stringify(reply.body));
          return;
        case "hangup-after":
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.write(reply.body, () => setTimeout(() => res.socket?.destroy(), 20));
          return;
        case "stall-after":
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.write(reply.body);
          return;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    enqueue: (...replies) => queue.push(...replies),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
