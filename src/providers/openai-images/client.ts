// The only file that talks to an OpenAI-compatible upstream: one undici Pool
// per channel, JSON and multipart POSTs (whole or streamed), and downloads of
// result URLs.
import { Blob } from "node:buffer";
import type { Readable } from "node:stream";
import { FormData, Pool, request, type Dispatcher } from "undici";
import type { ConnectError } from "@connectrpc/connect";
import { Code } from "@connectrpc/connect";
import { coreError } from "../../core/errors.js";
import { fromTransportError, fromVendorError } from "./errors.js";
import type { VendorFile } from "./translate.js";
import { BodyTooLargeError, discard, readText } from "../shared/http.js";
import { resultFetcher } from "../shared/result-urls.js";

export interface OpenAIClientOptions {
  /** Channel name, for errors and logs. */
  channel: string;
  /** Base URL including the version path, e.g. "https://api.openai.com/v1". */
  baseUrl: string;
  apiKey: string;
  now?: () => number;
  /** Upper bound for a downloaded result. */
  maxDownloadBytes?: number;
  /** Upper bound for a JSON answer read whole (base64 images included). */
  maxAnswerBytes?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
}

/** A 2xx answer to a streamed request: server-sent events, unread, or the JSON of a server that answered whole. */
export type StreamedAnswer = { events: Readable; json?: undefined } | { events?: undefined; json: unknown };

export interface OpenAIClient {
  postJson(path: string, body: unknown, signal: AbortSignal, requestId: string): Promise<unknown>;
  postForm(path: string, fields: Array<[string, string]>, files: VendorFile[], signal: AbortSignal, requestId: string): Promise<unknown>;
  /** The same POSTs asking for server-sent events; an error status is read and thrown as postJson does. */
  streamJson(path: string, body: unknown, signal: AbortSignal, requestId: string): Promise<StreamedAnswer>;
  streamForm(path: string, fields: Array<[string, string]>, files: VendorFile[], signal: AbortSignal, requestId: string): Promise<StreamedAnswer>;
  /** Fetches a result URL the upstream returned. */
  download(url: string, signal: AbortSignal): Promise<Uint8Array>;
  close(): Promise<void>;
}

/** The largest JSON answer read whole: ten of the largest images, as base64. */
const MAX_ANSWER_BYTES = 256 * 1024 * 1024;
/** An error answer is read up to this; the rest is dropped. */
const MAX_ERROR_BYTES = 64 * 1024;

const isEventStream = (type: string | string[] | undefined): boolean => /text\/event-stream/i.test(Array.isArray(type) ? (type[0] ?? "") : (type ?? ""));

/** A body's JSON (undefined when it is not JSON), at most `limit` bytes (more is a BodyTooLargeError). */
async function readJson(body: Dispatcher.ResponseData["body"], limit: number): Promise<unknown> {
  const text = await readText(body, limit);
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function openaiClient(opts: OpenAIClientOptions): OpenAIClient {
  const base = new URL(opts.baseUrl.replace(/\/+$/, "") + "/");
  const prefix = base.pathname.replace(/\/+$/, "");
  const pool = new Pool(base.origin, { connections: 16, headersTimeout: opts.headersTimeoutMs ?? 180_000, bodyTimeout: opts.bodyTimeoutMs ?? 180_000 });
  const now = opts.now ?? Date.now;
  const maxDownload = opts.maxDownloadBytes ?? 64 * 1024 * 1024;
  const maxAnswer = opts.maxAnswerBytes ?? MAX_ANSWER_BYTES;
  const elsewhere = resultFetcher(base);

  const open = async (path: string, body: string | FormData, contentType: string | undefined, accept: string, signal: AbortSignal, requestId: string): Promise<Dispatcher.ResponseData> => {
    try {
      return await pool.request({
        path: prefix + path,
        method: "POST",
        headers: {
          authorization: `Bearer ${opts.apiKey}`,
          accept,
          ...(contentType ? { "content-type": contentType } : {}),
          ...(requestId ? { "x-client-request-id": requestId } : {}),
        },
        body,
        signal,
      });
    } catch (err) {
      throw fromTransportError(err, opts.channel);
    }
  };

  const readAnswer = async (res: Dispatcher.ResponseData): Promise<unknown> => {
    const failed = res.statusCode >= 400;
    let json: unknown;
    try {
      json = await readJson(res.body, failed ? MAX_ERROR_BYTES : maxAnswer);
    } catch (err) {
      // An error answer too long to read is still its status; a result too long is no result.
      if (!(err instanceof BodyTooLargeError)) throw fromTransportError(err, opts.channel);
      if (!failed) throw badResponse(opts.channel);
    }
    if (failed) throw fromVendorError(res.statusCode, res.headers, json, opts.channel, now());
    if (json === undefined) throw badResponse(opts.channel);
    return json;
  };

  const send = async (path: string, body: string | FormData, contentType: string | undefined, signal: AbortSignal, requestId: string): Promise<unknown> =>
    readAnswer(await open(path, body, contentType, "application/json", signal, requestId));

  const stream = async (path: string, body: string | FormData, contentType: string | undefined, signal: AbortSignal, requestId: string): Promise<StreamedAnswer> => {
    const res = await open(path, body, contentType, "text/event-stream, application/json", signal, requestId);
    // An error status, or a compatible server that does not stream and answers whole, is read as send() reads it.
    if (res.statusCode >= 400 || !isEventStream(res.headers["content-type"])) return { json: await readAnswer(res) };
    return { events: res.body };
  };

  const form = (fields: Array<[string, string]>, files: VendorFile[]): FormData => {
    const f = new FormData();
    for (const [k, v] of fields) f.append(k, v);
    for (const file of files) f.append(file.field, new Blob([file.data], { type: file.mimeType }), file.filename);
    return f;
  };

  return {
    postJson(path, body, signal, requestId) {
      return send(path, JSON.stringify(body), "application/json", signal, requestId);
    },
    postForm(path, fields, files, signal, requestId) {
      return send(path, form(fields, files), undefined, signal, requestId);
    },
    streamJson(path, body, signal, requestId) {
      return stream(path, JSON.stringify(body), "application/json", signal, requestId);
    },
    streamForm(path, fields, files, signal, requestId) {
      return stream(path, form(fields, files), undefined, signal, requestId);
    },
    async download(url, signal) {
      let u: URL;
      try {
        u = new URL(url);
      } catch {
        throw badResponse(opts.channel);
      }
      const own = u.origin === base.origin;
      const problem = own ? undefined : elsewhere.problem(u);
      if (problem) throw badResponse(opts.channel, `a result URL that ${problem}`);
      let res: Dispatcher.ResponseData;
      try {
        res = own ? await pool.request({ path: u.pathname + u.search, method: "GET", signal }) : await request(u, { method: "GET", signal, dispatcher: elsewhere.agent });
      } catch (err) {
        throw fromTransportError(err, opts.channel);
      }
      if (res.statusCode >= 400) {
        await res.body.dump().catch(() => undefined);
        throw coreError(Code.Unavailable, "The upstream provider's result could not be downloaded.", {
          reason: "upstream_error",
          metadata: { channel: opts.channel, upstream_status: String(res.statusCode) },
        });
      }
      const chunks: Buffer[] = [];
      let size = 0;
      try {
        for await (const chunk of res.body) {
          size += (chunk as Buffer).length;
          if (size > maxDownload) {
            discard(res.body);
            throw badResponse(opts.channel);
          }
          chunks.push(chunk as Buffer);
        }
      } catch (err) {
        throw fromTransportError(err, opts.channel);
      }
      return Buffer.concat(chunks);
    },
    close: async () => {
      await Promise.allSettled([pool.close(), elsewhere.agent.close()]);
    },
  };
}

/** An answer the gateway cannot use; `why` goes to the log only. */
export function badResponse(channel: string, why?: string): ConnectError {
  return coreError(Code.Unavailable, "The upstream provider sent a response the gateway could not read.", {
    reason: "upstream_bad_response",
    metadata: { channel },
    ...(why ? { cause: new Error(why) } : {}),
  });
}
