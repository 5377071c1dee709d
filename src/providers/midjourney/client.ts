// The only I/O of the midjourney-proxy provider: JSON calls to the upstream
// over one keep-alive undici Pool (mj-api-secret auth), and downloads of its
// result images from wherever it hosts them.
import { Pool, request, type Dispatcher } from "undici";
import { Code, ConnectError } from "@connectrpc/connect";
import { BodyTooLargeError, readBody as readLimited } from "../shared/http.js";
import { resultFetcher } from "../shared/result-urls.js";

export interface MidjourneyClientOptions {
  channel: string;
  /** The proxy's root; "/mj" is appended unless the path already ends with it. */
  baseUrl: string;
  apiSecret: string;
  timeoutMs: number;
  /** Largest image downloaded. */
  maxBytes?: number;
}

export interface MidjourneyClient {
  readonly channel: string;
  post(path: string, body: unknown, signal: AbortSignal): Promise<unknown>;
  get(path: string, signal: AbortSignal): Promise<unknown>;
  download(url: string, signal: AbortSignal): Promise<{ data: Uint8Array; mimeType: string }>;
  close(): Promise<void>;
}

/** "/mj" prefix of the API under a base URL. */
export function apiPrefix(base: URL): string {
  const p = base.pathname.replace(/\/+$/, "");
  return /\/mj$/.test(p) ? p : `${p}/mj`;
}

async function readBody(body: Dispatcher.ResponseData<unknown>["body"], limit: number): Promise<Buffer> {
  try {
    return await readLimited(body, limit);
  } catch (err) {
    if (err instanceof BodyTooLargeError) throw new ConnectError("the upstream's answer is too large", Code.Unavailable);
    throw err;
  }
}

export function midjourneyClient(opts: MidjourneyClientOptions): MidjourneyClient {
  const base = new URL(opts.baseUrl);
  const prefix = apiPrefix(base);
  const pool = new Pool(base.origin, { connections: 16, connect: { timeout: opts.timeoutMs }, keepAliveTimeout: 30_000 });
  const downloads = resultFetcher(base, { connect: { timeout: opts.timeoutMs } });
  const maxBytes = opts.maxBytes ?? 32 * 1024 * 1024;
  const headers = { "content-type": "application/json", accept: "application/json", "mj-api-secret": opts.apiSecret };

  const exchange = async (method: "GET" | "POST", path: string, body: unknown, signal: AbortSignal): Promise<unknown> => {
    let res: Dispatcher.ResponseData<unknown>;
    try {
      res = await pool.request({
        method,
        path: prefix + path,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal,
        headersTimeout: opts.timeoutMs,
        bodyTimeout: opts.timeoutMs,
      });
    } catch (err) {
      if (signal.aborted) throw err;
      throw new ConnectError(`the midjourney upstream ${opts.channel} could not be reached`, Code.Unavailable, undefined, undefined, err);
    }
    const text = (await readBody(res.body, 8 * 1024 * 1024)).toString("utf8");
    if (res.statusCode === 401 || res.statusCode === 403) throw new ConnectError(`the midjourney upstream ${opts.channel} refused the channel's mj-api-secret`, Code.Unavailable);
    if (res.statusCode === 404 && !text.trim().startsWith("{")) throw new ConnectError(`the midjourney upstream ${opts.channel} has no ${path}`, Code.NotFound);
    if (res.statusCode >= 500) throw new ConnectError(`the midjourney upstream ${opts.channel} answered HTTP ${res.statusCode}`, Code.Unavailable);
    try {
      return JSON.parse(text);
    } catch {
      throw new ConnectError(`the midjourney upstream ${opts.channel} answered something that is not JSON (HTTP ${res.statusCode})`, Code.Unavailable);
    }
  };

  return {
    channel: opts.channel,
    post: (path, body, signal) => exchange("POST", path, body, signal),
    get: (path, signal) => exchange("GET", path, undefined, signal),
    async download(url, signal) {
      let u: URL;
      try {
        u = new URL(url);
      } catch {
        throw new ConnectError("the upstream's image URL is not a URL", Code.Unavailable);
      }
      const problem = downloads.problem(u);
      if (problem) throw new ConnectError(`the upstream's image URL ${problem}`, Code.Unavailable);
      let res: Dispatcher.ResponseData<unknown>;
      try {
        res = await request(u, { method: "GET", dispatcher: downloads.agent, signal, headersTimeout: opts.timeoutMs, bodyTimeout: opts.timeoutMs });
      } catch (err) {
        if (signal.aborted) throw err;
        throw new ConnectError("the upstream's image could not be downloaded", Code.Unavailable, undefined, undefined, err);
      }
      if (res.statusCode !== 200) {
        await res.body.dump().catch(() => undefined);
        throw new ConnectError(`the upstream's image could not be downloaded (HTTP ${res.statusCode})`, Code.Unavailable);
      }
      const data = await readBody(res.body, maxBytes);
      const type = String(res.headers["content-type"] ?? "")
        .split(";")[0]!
        .trim();
      return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), mimeType: type.startsWith("image/") ? type : "application/octet-stream" };
    },
    async close() {
      await Promise.allSettled([pool.close(), downloads.agent.close()]);
    },
  };
}
