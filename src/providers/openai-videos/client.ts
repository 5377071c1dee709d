// The only file that talks to an OpenAI-videos-compatible upstream: one undici
// Pool per channel; create (multipart), retrieve, remix and content downloads.
import { Blob } from "node:buffer";
import { FormData, Pool, type Dispatcher } from "undici";
import { protocolError, transportError } from "../shared/http-errors.js";
import type { UpstreamChannelOptions } from "../shared/pools.js";
import { fromVendorError, VENDOR } from "./errors.js";
import type { CreateForm } from "./translate.js";
import { video, type Variant, type Video } from "./wire.js";
import { readBody } from "../shared/http.js";

export interface OpenAIVideosClientOptions extends UpstreamChannelOptions {
  /** Largest download accepted. */
  maxBytes: number;
}

export interface OpenAIVideosClient {
  create(form: CreateForm, signal: AbortSignal): Promise<Video>;
  retrieve(id: string, signal: AbortSignal): Promise<Video>;
  remix(id: string, prompt: string, signal: AbortSignal): Promise<Video>;
  content(id: string, variant: Variant, signal: AbortSignal): Promise<{ data: Uint8Array; mimeType: string }>;
  close(): Promise<void>;
}

export function openaiVideosClient(opts: OpenAIVideosClientOptions): OpenAIVideosClient {
  const base = new URL(opts.baseUrl.replace(/\/+$/, "") + "/");
  const prefix = base.pathname.replace(/\/+$/, "");
  const pool = new Pool(base.origin, {
    connections: opts.connections ?? 16,
    connect: { timeout: opts.connectTimeoutMs ?? 10_000 },
    headersTimeout: opts.headersTimeoutMs ?? 120_000,
    bodyTimeout: opts.bodyTimeoutMs ?? 120_000,
  });
  const now = opts.now ?? Date.now;

  async function call(
    method: "GET" | "POST",
    path: string,
    signal: AbortSignal,
    body?: { json: unknown } | { form: FormData },
    accept = "application/json",
  ): Promise<{ data: Buffer; mimeType: string }> {
    let res: Dispatcher.ResponseData;
    const started = Date.now();
    try {
      res = await pool.request({
        path: prefix + path,
        method,
        headers: {
          authorization: `Bearer ${opts.apiKey}`,
          accept,
          ...opts.headers,
          ...(body && "json" in body ? { "content-type": "application/json" } : {}),
        },
        ...(body ? { body: "json" in body ? JSON.stringify(body.json) : body.form } : {}),
        signal,
      });
    } catch (err) {
      opts.log.warn({ channel: opts.channel, upstream: VENDOR, path, err, ms: Date.now() - started }, "upstream request failed");
      throw transportError(err, VENDOR, "connect");
    }
    const mimeType = String(res.headers["content-type"] ?? "")
      .split(";")[0]!
      .trim();
    let data: Buffer;
    try {
      data = await readBody(res.body, res.statusCode >= 400 ? 64 * 1024 : opts.maxBytes);
    } catch (err) {
      throw transportError(err, VENDOR, "body");
    }
    if (res.statusCode >= 400) {
      let json: unknown;
      try {
        json = JSON.parse(data.toString("utf8"));
      } catch {
        json = undefined;
      }
      opts.log.warn({ channel: opts.channel, upstream: VENDOR, path, status: res.statusCode, body: data.toString("utf8").slice(0, 4096) }, "upstream answered with an error");
      throw fromVendorError(res.statusCode, res.headers, json, now());
    }
    return { data, mimeType };
  }

  async function callVideo(method: "GET" | "POST", path: string, signal: AbortSignal, body?: { json: unknown } | { form: FormData }): Promise<Video> {
    const { data } = await call(method, path, signal, body);
    let json: unknown;
    try {
      json = JSON.parse(data.toString("utf8"));
    } catch {
      json = undefined;
    }
    const parsed = video.safeParse(json);
    if (!parsed.success) {
      opts.log.warn({ channel: opts.channel, upstream: VENDOR, path, body: data.toString("utf8").slice(0, 4096) }, "upstream sent an unexpected video object");
      throw protocolError(VENDOR, "not a Video object");
    }
    return parsed.data;
  }

  const enc = encodeURIComponent;
  return {
    create(form, signal) {
      const fd = new FormData();
      for (const [k, v] of form.fields) fd.append(k, v);
      for (const f of form.files) fd.append(f.field, new Blob([f.data], { type: f.mimeType }), f.filename);
      return callVideo("POST", "/videos", signal, { form: fd });
    },
    retrieve(id, signal) {
      return callVideo("GET", `/videos/${enc(id)}`, signal);
    },
    remix(id, prompt, signal) {
      return callVideo("POST", `/videos/${enc(id)}/remix`, signal, { json: { prompt } });
    },
    content(id, variant, signal) {
      return call("GET", `/videos/${enc(id)}/content?variant=${variant}`, signal, undefined, "application/binary");
    },
    close: () => pool.close(),
  };
}
