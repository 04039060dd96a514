import { request } from "node:http";
import type { RealUpstreamSettings } from "./resolve-upstream-settings.js";

/** How the one-token canary through the gateway ended. */
export type ProbeOutcome = "ok" | "key_refused" | "model_unknown" | "unreachable" | "failed";

/** The canary's verdict: what happened, the HTTP status (null when no answer) and a short, key-free detail. */
export interface ProbeResult {
  readonly outcome: ProbeOutcome;
  readonly httpStatus: number | null;
  readonly detail: string;
}

/** Where the gateway listens and the cell token to present (minted by the caller). */
export interface ProbeUpstreamOptions {
  readonly gateway: { readonly socketPath: string } | { readonly url: string };
  readonly token: string;
  readonly model: string;
  readonly timeoutMs?: number;
}

function errorType(body: string): { type: string; message: string } {
  try {
    const parsed = JSON.parse(body) as { error?: { type?: unknown; message?: unknown } };
    return { type: typeof parsed.error?.type === "string" ? parsed.error.type : "", message: typeof parsed.error?.message === "string" ? parsed.error.message.slice(0, 200) : "" };
  } catch {
    return { type: "", message: "" };
  }
}

/** Classifies an upstream answer; a 400 means the upstream read the request (key and model passed its checks). */
export function classifyProbeAnswer(status: number, body: string): ProbeResult {
  const error = errorType(body);
  const detail = error.type === "" ? `HTTP ${status}` : `HTTP ${status} ${error.type}${error.message === "" ? "" : `: ${error.message}`}`;
  if (status >= 200 && status < 300) return { outcome: "ok", httpStatus: status, detail };
  if (status === 401 || status === 403 || error.type === "authentication_error" || error.type === "permission_error") return { outcome: "key_refused", httpStatus: status, detail };
  if (status === 404 || error.type === "not_found_error" || /model.{0,40}not.?found/iu.test(error.message)) return { outcome: "model_unknown", httpStatus: status, detail };
  // The gateway answers 502 when its upstream cannot be reached at all.
  if (status === 502 && /could not reach/iu.test(error.message)) return { outcome: "unreachable", httpStatus: status, detail };
  if (status === 400 && error.type === "invalid_request_error") return { outcome: "ok", httpStatus: status, detail };
  return { outcome: "failed", httpStatus: status, detail };
}

/**
 * Sends one non-streaming max_tokens=1 Messages request through the gateway and classifies the answer. Trusts the
 * gateway to hold the real key; the token is a cell token. Never throws for an upstream failure (returned as a value).
 */
export function probeUpstream(options: ProbeUpstreamOptions): Promise<ProbeResult> {
  const body = JSON.stringify({ model: options.model, max_tokens: 1, messages: [{ role: "user", content: "wfbench upstream canary: reply with one token" }] });
  const target = "socketPath" in options.gateway ? { socketPath: options.gateway.socketPath, host: "localhost" } : (() => {
    const url = new URL(options.gateway.url);
    return { host: url.hostname, port: Number(url.port) };
  })();
  return new Promise((resolve) => {
    const req = request(
      {
        ...target,
        method: "POST",
        path: "/v1/messages",
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), "x-api-key": options.token, "anthropic-version": "2023-06-01" },
        timeout: options.timeoutMs ?? 60_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => {
          if (chunks.length < 64) chunks.push(chunk);
        });
        res.on("end", () => resolve(classifyProbeAnswer(res.statusCode ?? 0, Buffer.concat(chunks).toString("utf8"))));
        res.on("error", (error) => resolve({ outcome: "unreachable", httpStatus: null, detail: error.message }));
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer within ${options.timeoutMs ?? 60_000} ms`)));
    req.on("error", (error) => resolve({ outcome: "unreachable", httpStatus: null, detail: `the gateway did not answer (${error.message})` }));
    req.end(body);
  });
}

/** What a canary message names: the route (for the key variable), the endpoint and the model asked for. */
export interface ProbeContext {
  readonly kind: RealUpstreamSettings["kind"];
  readonly baseUrl: string;
  readonly model: string;
  /** The probe's detail, already redacted by the caller (it may echo upstream text). */
  readonly detail: string;
  /** What the canary protects, e.g. "a sweep" or "a proposer session" (named in the "failed" message). */
  readonly before: string;
}

/** The message naming the fix for a canary that did not answer "ok"; null for "ok". Trusts `detail` to be redacted. */
export function explainProbeFailure(result: ProbeResult, context: ProbeContext): string | null {
  const where = `${context.baseUrl} (${context.detail})`;
  switch (result.outcome) {
    case "ok":
      return null;
    case "key_refused":
      return `upstream canary: ${where} refused the key: check ${context.kind === "openai" ? "WFBENCH_OPENAI_API_KEY / --openai-api-key" : "WFBENCH_ANTHROPIC_API_KEY / --anthropic-api-key (or --auth-token for a Bearer endpoint)"}`;
    case "model_unknown":
      return `upstream canary: ${where} does not serve --model ${context.model}: pass a model id this endpoint serves`;
    case "unreachable":
      return `upstream canary: ${where} could not be reached: check --base-url and that the endpoint is up`;
    case "failed":
      return `upstream canary: ${where} failed the 1-token request: check the endpoint's status before paying for ${context.before}`;
  }
}
