// Shared helpers of the /ib tests: a gateway with a fast local engine and
// small images, a tiny client, extra keys, test images and polling.
import sharp from "sharp";
import { hashSecret } from "../../../src/core/auth/secrets.js";
import { ADMIN_KEY, startServer, type TestServer } from "../../helpers/app.js";

export { ADMIN_KEY };

export const USER_KEY = "sk-test-user-0123456789abcdef";

export interface IbOptions {
  taskMs?: number;
  tileSize?: number;
  imageBot?: Record<string, unknown>;
  tasks?: Record<string, unknown>;
  channels?: unknown[];
  publicUrl?: string;
}

/** A gateway whose local engine takes `taskMs` per task and makes `tileSize`-pixel images; USER_KEY is a plain key. */
export async function startIb(o: IbOptions = {}): Promise<TestServer> {
  const s = await startServer({
    config: {
      local: { taskMs: o.taskMs ?? 120 },
      imageBot: { tileSize: o.tileSize ?? 32, pollIntervalMs: 50, ...o.imageBot },
      tasks: { callbackAllowPrivate: true, callbackBackoffMs: 20, callbackMaxBackoffMs: 100, sweepIntervalMs: 0, ...o.tasks },
      ...(o.channels ? { channels: o.channels } : {}),
      ...(o.publicUrl ? { publicUrl: o.publicUrl } : {}),
    } as never,
  });
  await addKey(s, "key_user", USER_KEY);
  return s;
}

export async function addKey(s: TestServer, id: string, secret: string, extra: { admin?: boolean; budget?: number; spent?: number; requestsPerMinute?: number } = {}): Promise<void> {
  await s.deps.storage.keys.insert({
    id,
    name: id,
    hash: hashSecret(secret),
    prefix: secret.slice(0, 10),
    admin: extra.admin ?? false,
    formats: [],
    models: [],
    budget: extra.budget ?? 0,
    spent: extra.spent ?? 0,
    limits: { requestsPerMinute: extra.requestsPerMinute ?? 0, tokensPerMinute: 0, concurrentRequests: 0 },
    createTime: Date.now(),
  });
}

export interface Answer<T = any> {
  status: number;
  body: T;
}

export function client(s: TestServer, key: string | null = USER_KEY, prefix = "/ib") {
  const headers = (extra: Record<string, string> = {}): Record<string, string> => ({ ...(key ? { authorization: `Bearer ${key}` } : {}), ...extra });
  return {
    async post<T = any>(path: string, body: unknown, raw = false): Promise<Answer<T>> {
      const res = await fetch(`${s.baseUrl}${prefix}${path}`, { method: "POST", headers: headers({ "content-type": "application/json" }), body: raw ? (body as string) : JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as T };
    },
    async get<T = any>(path: string): Promise<Answer<T>> {
      const res = await fetch(`${s.baseUrl}${prefix}${path}`, { headers: headers() });
      return { status: res.status, body: (await res.json()) as T };
    },
    /** Polls fetch until the task is in one of the statuses. */
    async waitFor(id: string, statuses: string[] = ["SUCCESS", "FAILURE", "CANCEL"], timeoutMs = 20_000): Promise<any> {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const r = await this.get(`/task/${id}/fetch`);
        if (r.status === 200 && statuses.includes(r.body.status)) return r.body;
        if (Date.now() > end) throw new Error(`task ${id} did not reach ${statuses.join("/")}: ${JSON.stringify(r.body)}`);
        await new Promise((res) => setTimeout(res, 25));
      }
    },
    /** Submits and waits for success; returns the finished task. */
    async run(path: string, body: unknown): Promise<any> {
      const r = await this.post(path, body);
      if (r.status !== 200 || (r.body.code !== 1 && r.body.code !== 22)) throw new Error(`${path} refused: ${JSON.stringify(r.body)}`);
      const t = await this.waitFor(r.body.result);
      if (t.status !== "SUCCESS") throw new Error(`${path} task failed: ${JSON.stringify(t)}`);
      return t;
    },
    /** Presses a button and waits; returns the finished task. */
    async press(task: any, label: string | ((b: any) => boolean)): Promise<any> {
      const b = task.buttons.find(typeof label === "function" ? label : (x: any) => x.label === label || x.emoji === label);
      if (!b) throw new Error(`no button ${String(label)} on task ${task.id}`);
      return this.run("/submit/action", { taskId: task.id, customId: b.customId });
    },
  };
}

/** A solid-colour PNG (or another format) as a data URL. */
export async function image(width: number, height: number, colour = "#cc3322", format: "png" | "jpeg" | "webp" | "gif" = "png"): Promise<string> {
  const buf = await sharp({ create: { width, height, channels: 3, background: colour } })
    .toFormat(format)
    .toBuffer();
  return `data:image/${format};base64,${buf.toString("base64")}`;
}

/** Downloads an image URL and returns its size and raw RGB pixels. */
export async function download(url: string): Promise<{ status: number; width: number; height: number; type: string; bytes: Buffer; raw: Buffer }> {
  const res = await fetch(url);
  const bytes = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) return { status: res.status, width: 0, height: 0, type: "", bytes, raw: Buffer.alloc(0) };
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { status: res.status, width: info.width, height: info.height, type: res.headers.get("content-type") ?? "", bytes, raw: data };
}

/** Raw RGB pixels of a region of an image. */
export async function region(bytes: Buffer, left: number, top: number, width: number, height: number): Promise<Buffer> {
  return sharp(bytes).removeAlpha().extract({ left, top, width, height }).raw().toBuffer();
}
