// A fake OpenAI Videos API on loopback (node:http): create (multipart or
// JSON), retrieve (queued -> in_progress -> completed over a few polls),
// remix, content (a real MP4, WebP and JPEG) and errors chosen by the prompt:
// "moderate me" fails the video as moderation_blocked, "leaky" fails it with
// UPSTREAM_MARKER as its error code and message, "http-500" and
// "http-400" fail the create, "slow" stays in progress.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ffmpeg } from "../../../src/core/video/media.js";

/** What the "leaky" prompt puts in the upstream's error; it must never reach a client. */
export const UPSTREAM_MARKER = "zz_upstream_marker_7f3a";

export interface FakeCall {
  method: string;
  path: string;
  auth: string;
  contentType: string;
  fields: Record<string, string>;
  file?: { field: string; name: string; type: string; size: number };
}

export interface FakeOpenAIVideos {
  baseUrl: string;
  calls: FakeCall[];
  /** Polls each video needs before it completes. */
  pollsToFinish: number;
  close(): Promise<void>;
}

export async function clip(width = 64, height = 48, seconds = 1, fps = 5): Promise<{ mp4: Buffer; webp: Buffer; jpeg: Buffer }> {
  const dir = mkdtempSync(path.join(tmpdir(), "fake-clip-"));
  try {
    const mp4 = path.join(dir, "c.mp4");
    await ffmpeg(["-f", "lavfi", "-i", `testsrc=s=${width}x${height}:r=${fps}:d=${seconds}`, "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", mp4]);
    await ffmpeg(["-i", mp4, "-frames:v", "1", "-c:v", "libwebp", path.join(dir, "t.webp")]);
    await ffmpeg(["-i", mp4, "-frames:v", "1", path.join(dir, "s.jpg")]);
    return { mp4: readFileSync(mp4), webp: readFileSync(path.join(dir, "t.webp")), jpeg: readFileSync(path.join(dir, "s.jpg")) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function fakeOpenAIVideos(opts: { key?: string; pollsToFinish?: number } = {}): Promise<FakeOpenAIVideos> {
  const media = await clip();
  const calls: FakeCall[] = [];
  const videos = new Map<string, { id: string; prompt: string; polls: number; remixOf?: string; seconds: string; size: string; model: string }>();
  let seq = 0;
  let server: Server;
  const fake: FakeOpenAIVideos = {
    baseUrl: "",
    calls,
    pollsToFinish: opts.pollsToFinish ?? 2,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const video = (v: { id: string; prompt: string; polls: number; remixOf?: string; seconds: string; size: string; model: string }) => {
    const leaky = v.prompt.includes("leaky");
    const failed = v.prompt.includes("moderate me") || leaky;
    const done = v.polls >= fake.pollsToFinish && !v.prompt.includes("slow");
    return {
      id: v.id,
      object: "video",
      created_at: 1758941485,
      completed_at: done ? 1758941600 : null,
      expires_at: null,
      error: failed && done ? (leaky ? { code: UPSTREAM_MARKER, message: `upstream says: ${UPSTREAM_MARKER}` } : { code: "moderation_blocked", message: "upstream says: blocked" }) : null,
      model: v.model,
      progress: done ? 100 : Math.min(90, v.polls * 40),
      prompt: v.prompt,
      remixed_from_video_id: v.remixOf ?? null,
      seconds: v.seconds,
      size: v.size,
      status: done ? (failed ? "failed" : "completed") : v.polls === 0 ? "queued" : "in_progress",
    };
  };
  server = createServer(async (req, res) => {
    const url = new URL(req.url!, "http://x");
    const raw = await body(req);
    const call: FakeCall = { method: req.method!, path: url.pathname + url.search, auth: String(req.headers.authorization ?? ""), contentType: String(req.headers["content-type"] ?? ""), fields: {} };
    calls.push(call);
    const json = (status: number, v: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(v));
    };
    if (opts.key && call.auth !== `Bearer ${opts.key}`)
      return json(401, { error: { message: "Incorrect API key provided: sk-x.", type: "invalid_request_error", param: null, code: "invalid_api_key" } });
    if (call.contentType.startsWith("multipart/form-data")) {
      const form = await new Request("http://x", { method: "POST", headers: { "content-type": call.contentType }, body: raw }).formData();
      for (const [k, v] of form.entries()) {
        if (typeof v === "string") call.fields[k] = v;
        else call.file = { field: k, name: v.name, type: v.type, size: v.size };
      }
    } else if (raw.length) for (const [k, v] of Object.entries(JSON.parse(raw.toString()) as Record<string, unknown>)) call.fields[k] = String(v);
    const m = /^\/v1\/videos(?:\/([^/]+))?(?:\/(remix|content))?$/.exec(url.pathname);
    if (!m) return json(404, { error: { message: "no route", type: "invalid_request_error", param: null, code: null } });
    const [, id, sub] = m;
    if (req.method === "POST" && !id) {
      const prompt = call.fields.prompt ?? "";
      if (prompt.includes("http-500")) return json(500, { error: { message: "boom", type: "server_error", param: null, code: null } });
      if (prompt.includes("http-400")) return json(400, { error: { message: "Invalid value: '5'.", type: "invalid_request_error", param: "seconds", code: "invalid_value" } });
      const v = { id: `video_up${++seq}`, prompt, polls: 0, seconds: call.fields.seconds ?? "4", size: call.fields.size ?? "720x1280", model: call.fields.model ?? "sora-2" };
      videos.set(v.id, v);
      return json(200, video(v));
    }
    const v = id ? videos.get(id) : undefined;
    if (!v) return json(404, { error: { message: "Video not found", type: "invalid_request_error", param: null, code: null } });
    if (req.method === "POST" && sub === "remix") {
      const r = { ...v, id: `video_up${++seq}`, prompt: call.fields.prompt ?? "", polls: 0, remixOf: v.id };
      videos.set(r.id, r);
      return json(200, video(r));
    }
    if (req.method === "GET" && sub === "content") {
      const variant = url.searchParams.get("variant") ?? "video";
      const [type, data] = variant === "thumbnail" ? ["image/webp", media.webp] : variant === "spritesheet" ? ["image/jpeg", media.jpeg] : ["video/mp4", media.mp4];
      res.writeHead(200, { "content-type": type, "content-length": String(data.length) });
      return res.end(data);
    }
    if (req.method === "GET" && !sub) {
      v.polls++;
      return json(200, video(v));
    }
    return json(405, { error: { message: "method", type: "invalid_request_error", param: null, code: null } });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return fake;
}
