// A fake OpenAI Images API on loopback (node:http). Its behaviour is chosen by
// the upstream model name; every request is recorded for assertions. A request
// with `stream: true` is answered with server-sent events the way OpenAI
// streams images (partial images, then one completed event per image).
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";

export interface RecordedPart {
  name: string;
  filename?: string;
  type?: string;
  value?: string;
  size?: number;
}

export interface Recorded {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  json?: Record<string, unknown>;
  parts?: RecordedPart[];
}

export interface FakeUpstream {
  url: string;
  requests: Recorded[];
  png: Buffer;
  close(): Promise<void>;
}

export const UPSTREAM_KEY = "sk-upstream-secret-123";
/** A string the "leaky" models put in every field of their 400; it must never reach a client. */
export const UPSTREAM_MARKER = "zz_upstream_marker_7f3a";

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function startFakeUpstream(): Promise<FakeUpstream> {
  const png = await sharp({ create: { width: 48, height: 32, channels: 4, background: { r: 200, g: 30, b: 30, alpha: 1 } } })
    .png()
    .toBuffer();
  const requests: Recorded[] = [];
  let base = "";
  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
    const rec: Recorded = { method: req.method ?? "", path: req.url ?? "", headers: req.headers };
    requests.push(rec);
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(typeof payload === "string" ? payload : JSON.stringify(payload));
    };
    if (req.method === "GET" && req.url === "/cdn/result.png") {
      res.writeHead(200, { "content-type": "image/png" });
      return res.end(png);
    }
    if (req.method === "GET" && req.url === "/cdn/missing.png") return send(404, { error: "gone" });
    let model = "";
    if ((req.headers["content-type"] ?? "").startsWith("application/json")) {
      rec.json = JSON.parse(body.toString("utf8"));
      model = String(rec.json!.model);
    } else {
      const form = await new Response(body, { headers: { "content-type": req.headers["content-type"] ?? "" } }).formData();
      rec.parts = [];
      for (const [name, v] of form.entries()) {
        if (typeof v === "string") rec.parts.push({ name, value: v });
        else rec.parts.push({ name, filename: v.name, type: v.type, size: v.size });
        if (name === "model") model = String(v);
      }
    }
    if (req.headers.authorization !== `Bearer ${UPSTREAM_KEY}`)
      return send(401, { error: { message: "Incorrect API key provided", type: "invalid_request_error", param: null, code: "invalid_api_key" } });
    switch (model) {
      case "fail-500":
        return send(500, { error: { message: "The server had an error", type: "server_error", param: null, code: null } });
      case "rate":
        return send(429, { error: { message: "Rate limit reached for requests", type: "requests", param: null, code: "rate_limit_exceeded" } }, { "retry-after": "7" });
      case "quota":
        return send(429, { error: { message: "You exceeded your current quota", type: "insufficient_quota", param: null, code: "insufficient_quota" } });
      case "auth":
        return send(401, { error: { message: `Incorrect API key provided: ${UPSTREAM_KEY}.`, type: "invalid_request_error", param: null, code: "invalid_api_key" } });
      case "bad-size":
        return send(400, { error: { message: `Invalid value: 'x'. Upstream internal note ${UPSTREAM_KEY}`, type: "invalid_request_error", param: "size", code: "invalid_value" } });
      case "leaky":
        return send(400, { error: { message: `bad ${UPSTREAM_MARKER}`, type: UPSTREAM_MARKER, param: UPSTREAM_MARKER, code: UPSTREAM_MARKER } });
      case "leaky-size":
        return send(400, { error: { message: `bad ${UPSTREAM_MARKER}`, type: UPSTREAM_MARKER, param: "size", code: UPSTREAM_MARKER } });
      case "moderated":
        return send(400, { error: { message: "Your request was rejected by the safety system.", type: "image_generation_user_error", param: null, code: "moderation_blocked" } });
      case "garbage":
        res.writeHead(200, { "content-type": "text/html" });
        return res.end("<html>oops</html>");
      case "no-model":
        return send(404, { error: { message: "The model does not exist", type: "invalid_request_error", param: null, code: "model_not_found" } });
      case "url-result":
        return send(200, { created: 1, data: [{ url: `${base}/cdn/result.png` }] });
      case "broken-url":
        return send(200, { created: 1, data: [{ url: `${base}/cdn/missing.png` }] });
    }
    const n = Number(rec.json?.n ?? rec.parts?.find((p) => p.name === "n")?.value ?? 1);
    const streamed = rec.json?.stream === true || rec.parts?.some((p) => p.name === "stream" && p.value === "true");
    if (streamed && model !== "ignores-stream") {
      const prefix = req.url?.endsWith("/edits") ? "image_edit" : "image_generation";
      const partials = Number(rec.json?.partial_images ?? rec.parts?.find((p) => p.name === "partial_images")?.value ?? 0);
      const common = { background: "opaque", created_at: 1, output_format: "png", quality: "low", size: "1024x1024" };
      res.writeHead(200, { "content-type": "text/event-stream" });
      const event = (data: Record<string, unknown>) => res.write(`event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`);
      for (let i = 0; i < n; i++) {
        for (let k = 0; k < partials; k++) event({ type: `${prefix}.partial_image`, b64_json: png.toString("base64"), partial_image_index: k, ...common });
        if (model === "stream-error") {
          event({ type: "error", error: { type: "server_error", code: "internal", message: `upstream broke ${UPSTREAM_KEY}`, param: null } });
          return res.end();
        }
        if (model === "stream-moderated") {
          res.write(`data: ${JSON.stringify({ error: { type: "image_generation_user_error", code: "moderation_blocked", message: "Your request was rejected.", param: null } })}\n\n`);
          return res.end();
        }
        if (model === "stream-garbage") {
          res.write("data: {not json\n\n");
          return res.end();
        }
        if (model === "stream-empty") break;
        const usage = { input_tokens: 5, input_tokens_details: { text_tokens: 3, image_tokens: 2 }, output_tokens: 40, total_tokens: 45 };
        event({ type: `${prefix}.completed`, b64_json: png.toString("base64"), ...common, usage });
      }
      res.write("data: [DONE]\n\n");
      return res.end();
    }
    const data = Array.from({ length: n }, () => ({ b64_json: png.toString("base64"), ...(model.includes("dall-e-3") ? { revised_prompt: "An upstream-revised prompt." } : {}) }));
    const usage = model.startsWith("gpt-image") ? { input_tokens: 11, input_tokens_details: { text_tokens: 7, image_tokens: 4 }, output_tokens: 99, total_tokens: 110 } : undefined;
    return send(200, { created: 1, data, ...(usage ? { usage } : {}) });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    png,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
