// Sends one callback attempt: POST of the stored body with Standard Webhooks
// headers, no redirects, a timeout, and the SSRF guard on the connection.
import { Agent, request, type Dispatcher } from "undici";
import { callbackUrlProblem, guardedLookup, SsrfError } from "./ssrf.js";
import { webhookHeaders } from "./webhook-signing.js";

export interface SenderOptions {
  secret: string;
  allowPrivate: boolean;
  timeoutMs: number;
  userAgent?: string;
}

export type SendOutcome = { ok: true; status: number } | { ok: false; retry: boolean; error: string };

export interface WebhookSender {
  send(msg: { id: string; url: string; body: string }, nowMs: number): Promise<SendOutcome>;
  close(): Promise<void>;
}

function isSsrf(err: unknown): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    if (e instanceof SsrfError) return true;
  }
  return false;
}

export function webhookSender(opts: SenderOptions): WebhookSender {
  const dispatcher: Dispatcher = new Agent({
    connect: { timeout: opts.timeoutMs, ...(opts.allowPrivate ? {} : { lookup: guardedLookup }) },
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
    keepAliveTimeout: 10_000,
  });
  return {
    async send(msg, nowMs) {
      const problem = callbackUrlProblem(msg.url, opts.allowPrivate);
      if (problem) return { ok: false, retry: false, error: `refused: the callback URL ${problem}` };
      const headers = {
        "content-type": "application/json",
        "user-agent": opts.userAgent ?? "omnigate-webhooks/1",
        ...webhookHeaders(opts.secret, msg.id, Math.floor(nowMs / 1000), msg.body),
      };
      try {
        const res = await request(msg.url, { method: "POST", body: msg.body, headers, dispatcher, signal: AbortSignal.timeout(opts.timeoutMs) });
        await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
        if (res.statusCode >= 200 && res.statusCode < 300) return { ok: true, status: res.statusCode };
        return { ok: false, retry: true, error: `receiver answered HTTP ${res.statusCode}` };
      } catch (err) {
        if (isSsrf(err)) return { ok: false, retry: false, error: "refused: the callback host resolves to a private or loopback address" };
        const e = err as NodeJS.ErrnoException;
        return { ok: false, retry: true, error: `delivery failed: ${e.code ?? e.name ?? "error"}` };
      }
    },
    async close() {
      await dispatcher.close().catch(() => undefined);
    },
  };
}
