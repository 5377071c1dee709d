// The only file that talks to a remote /v1/video/generations gateway: one
// undici Pool per channel for submit and poll, and result downloads (the
// channel's key goes only to the channel's own origin).
import { Pool, type Dispatcher } from "undici";
import { protocolError, transportError } from "../shared/http-errors.js";
import type { UpstreamChannelOptions } from "../shared/pools.js";
import { fromVendorError, VENDOR } from "./errors.js";
import type { SubmitBody } from "./translate.js";
import { submitted, task, type Task } from "./wire.js";
import { readBody } from "../shared/http.js";
import { resultFetcher } from "../shared/result-urls.js";

export interface VideoGatewayClientOptions extends UpstreamChannelOptions {
  /** Largest download accepted. */
  maxBytes: number;
}

export interface VideoGatewayClient {
  /** Returns the upstream task id. */
  submit(body: SubmitBody, signal: AbortSignal): Promise<string>;
  get(id: string, signal: AbortSignal): Promise<Task>;
  download(url: string, signal: AbortSignal): Promise<{ data: Uint8Array; mimeType: string }>;
  close(): Promise<void>;
}

const parseJson = (b: Buffer): unknown => {
  try {
    return JSON.parse(b.toString("utf8"));
  } catch {
    return undefined;
  }
};

export function videoGatewayClient(opts: VideoGatewayClientOptions): VideoGatewayClient {
  const base = new URL(opts.baseUrl.replace(/\/+$/, "") + "/");
  const prefix = base.pathname.replace(/\/+$/, "");
  const timeouts = { headersTimeout: opts.headersTimeoutMs ?? 120_000, bodyTimeout: opts.bodyTimeoutMs ?? 120_000 };
  const pool = new Pool(base.origin, { connections: opts.connections ?? 16, connect: { timeout: opts.connectTimeoutMs ?? 10_000 }, ...timeouts });
  const elsewhere = resultFetcher(base, { connect: { timeout: opts.connectTimeoutMs ?? 10_000 }, ...timeouts });
  const now = opts.now ?? Date.now;
  const auth = { authorization: `Bearer ${opts.apiKey}`, ...opts.headers };

  async function exchange(dispatcher: Dispatcher, req: Dispatcher.RequestOptions, limit: number): Promise<{ data: Buffer; mimeType: string }> {
    let res: Dispatcher.ResponseData;
    const started = Date.now();
    try {
      res = await dispatcher.request(req);
    } catch (err) {
      opts.log.warn({ channel: opts.channel, upstream: VENDOR, path: req.path, err, ms: Date.now() - started }, "upstream request failed");
      throw transportError(err, VENDOR, "connect");
    }
    let data: Buffer;
    try {
      data = await readBody(res.body, res.statusCode >= 400 ? 64 * 1024 : limit);
    } catch (err) {
      throw transportError(err, VENDOR, "body");
    }
    if (res.statusCode >= 400) {
      opts.log.warn({ channel: opts.channel, upstream: VENDOR, path: req.path, status: res.statusCode, body: data.toString("utf8").slice(0, 4096) }, "upstream answered with an error");
      throw fromVendorError(res.statusCode, res.headers, parseJson(data), now());
    }
    return {
      data,
      mimeType: String(res.headers["content-type"] ?? "")
        .split(";")[0]!
        .trim(),
    };
  }

  const bad = (path: string, data: Buffer, what: string) => {
    opts.log.warn({ channel: opts.channel, upstream: VENDOR, path, body: data.toString("utf8").slice(0, 4096) }, "upstream sent an unexpected answer");
    return protocolError(VENDOR, what);
  };

  return {
    async submit(body, signal) {
      const path = `${prefix}/video/generations`;
      const { data } = await exchange(
        pool,
        { path, method: "POST", headers: { ...auth, "content-type": "application/json", accept: "application/json" }, body: JSON.stringify(body), signal },
        1024 * 1024,
      );
      const r = submitted.safeParse(parseJson(data));
      if (!r.success) throw bad(path, data, "submit answer without a task id");
      return (r.data.task_id || r.data.id)!;
    },
    async get(id, signal) {
      const path = `${prefix}/video/generations/${encodeURIComponent(id)}`;
      const { data } = await exchange(pool, { path, method: "GET", headers: { ...auth, accept: "application/json" }, signal }, 1024 * 1024);
      const r = task.safeParse(parseJson(data));
      if (!r.success) throw bad(path, data, "not a video task");
      return r.data;
    },
    async download(raw, signal) {
      let url: URL;
      try {
        url = new URL(raw, base);
      } catch {
        throw protocolError(VENDOR, "result url is not a URL");
      }
      const own = url.origin === base.origin;
      const problem = own ? undefined : elsewhere.problem(url);
      if (problem) throw protocolError(VENDOR, `result url ${problem}`);
      return exchange(
        own ? pool : elsewhere.agent,
        { origin: url.origin, path: url.pathname + url.search, method: "GET", headers: own ? { ...auth, accept: "*/*" } : { accept: "*/*" }, signal },
        opts.maxBytes,
      );
    },
    async close() {
      await Promise.allSettled([pool.close(), elsewhere.agent.close()]);
    },
  };
}
