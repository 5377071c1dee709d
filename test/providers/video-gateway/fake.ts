// A fake remote gateway speaking /v1/video/generations on loopback: submit
// answers {task_id, status}; polls move processing -> succeeded with a url on
// a separate file host (or, in "new-api" style, an OpenAI-like object with
// metadata.url). Prompts choose failures: "moderate me" fails the task,
// "leaky" fails it with UPSTREAM_MARKER as its error code and message,
// "http-500"/"http-400"/"http-429" fail the submit, "no-url" succeeds without a url.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { clip } from "../openai-videos/fake.js";

/** What the "leaky" prompt puts in the upstream's error; it must never reach a client. */
export const UPSTREAM_MARKER = "zz_upstream_marker_7f3a";

export interface GatewayCall {
  method: string;
  path: string;
  auth: string;
  body: Record<string, unknown>;
}

export interface FakeVideoGateway {
  baseUrl: string;
  calls: GatewayCall[];
  /** Requests the file host saw, with their authorization header. */
  downloads: Array<{ path: string; auth: string }>;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString();
}

const listen = (s: Server) => new Promise<number>((resolve) => s.listen(0, "127.0.0.1", () => resolve((s.address() as AddressInfo).port)));

export async function fakeVideoGateway(opts: { key: string; style?: "omnigate" | "new-api"; pollsToFinish?: number }): Promise<FakeVideoGateway> {
  const media = await clip(80, 48, 1, 4);
  const calls: GatewayCall[] = [];
  const downloads: Array<{ path: string; auth: string }> = [];
  const tasks = new Map<string, { prompt: string; polls: number }>();
  let seq = 0;
  const files = createServer((req, res) => {
    downloads.push({ path: req.url!, auth: String(req.headers.authorization ?? "") });
    res.writeHead(200, { "content-type": "video/mp4", "content-length": String(media.mp4.length) });
    res.end(media.mp4);
  });
  const filePort = await listen(files);
  const polls = opts.pollsToFinish ?? 2;
  const server = createServer(async (req, res) => {
    if (req.url?.startsWith("/files/")) {
      // Relative result URLs resolve against the gateway itself.
      downloads.push({ path: req.url, auth: String(req.headers.authorization ?? "") });
      res.writeHead(200, { "content-type": "video/mp4", "content-length": String(media.mp4.length) });
      return res.end(media.mp4);
    }
    const raw = await readBody(req);
    const call: GatewayCall = { method: req.method!, path: req.url!, auth: String(req.headers.authorization ?? ""), body: raw ? (JSON.parse(raw) as Record<string, unknown>) : {} };
    calls.push(call);
    const json = (status: number, v: unknown) => {
      res.writeHead(status, { "content-type": "application/json", ...(status === 429 ? { "retry-after": "1" } : {}) });
      res.end(JSON.stringify(v));
    };
    if (call.auth !== `Bearer ${opts.key}`) return json(401, { code: "invalid_api_key", message: "bad key", param: "", type: "authentication_error" });
    if (req.method === "POST" && req.url === "/v1/video/generations") {
      const prompt = String(call.body.prompt ?? "");
      if (prompt.includes("http-500")) return json(500, { code: null, message: "boom", param: "", type: "server_error" });
      if (prompt.includes("http-400")) return json(400, { code: "invalid_value", message: "bad size", param: "size", type: "invalid_request_error" });
      if (prompt.includes("http-429")) return json(429, { code: "rate_limit_exceeded", message: "slow down", param: "", type: "rate_limit_error" });
      const id = `gw_${++seq}`;
      tasks.set(id, { prompt, polls: 0 });
      return json(200, opts.style === "new-api" ? { id, task_id: id, object: "video", status: "queued", progress: 0 } : { task_id: id, status: "processing" });
    }
    const m = /^\/v1\/video\/generations\/([^/]+)$/.exec(req.url!);
    const task = m && req.method === "GET" ? tasks.get(m[1]!) : undefined;
    if (!task) return json(404, { code: "task_not_found", message: "no such task", param: "task_id", type: "not_found_error" });
    task.polls++;
    const done = task.polls >= polls;
    const failed = done && (task.prompt.includes("moderate me") || task.prompt.includes("leaky"));
    const error = task.prompt.includes("leaky") ? { code: UPSTREAM_MARKER, message: `failed: ${UPSTREAM_MARKER}` } : { code: "moderation_blocked", message: "blocked upstream" };
    const url = task.prompt.includes("relative") ? `/files/${m![1]}.mp4` : `http://127.0.0.1:${filePort}/files/${m![1]}.mp4`;
    if (opts.style === "new-api") {
      return json(200, {
        id: m![1],
        task_id: m![1],
        object: "video",
        status: done ? (failed ? "failed" : "completed") : "in_progress",
        progress: done ? 100 : 30,
        ...(done && !failed && !task.prompt.includes("no-url") ? { metadata: { url } } : {}),
        ...(failed ? { error } : {}),
      });
    }
    return json(200, {
      task_id: m![1],
      status: done ? (failed ? "failed" : "succeeded") : "processing",
      format: "mp4",
      progress: done ? 100 : 30,
      ...(done && !failed && !task.prompt.includes("no-url") ? { url } : {}),
      metadata: { duration: 1, fps: 4, height: 48, seed: 1, width: 80 },
      error: failed ? error : null,
    });
  });
  const port = await listen(server);
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    calls,
    downloads,
    close: async () => {
      await Promise.all([new Promise((r) => server.close(r)), new Promise((r) => files.close(r))]);
    },
  };
}
