// A fake midjourney-proxy (plus API): submit endpoints, actions that may ask
// for a modal, fetch with progress that advances per poll, image-seed, and the
// images it "hosts". Every request is recorded.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";

export interface FakeTask {
  id: string;
  action: string;
  status: string;
  prompt: string;
  polls: number;
  grid: boolean;
  customId?: string;
  notifyHook?: string;
  fail?: boolean;
}

export interface Recorded {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: any;
}

export interface FakeUpstream {
  url: string;
  secret: string;
  requests: Recorded[];
  tasks: Map<string, FakeTask>;
  /** Polls before a task succeeds. */
  pollsToFinish: number;
  close(): Promise<void>;
}

/** What the fake puts in its refusal and failure texts; it must never reach a client. */
export const UPSTREAM_MARKER = "zz_upstream_marker_7f3a";

const MODAL_BUTTONS = /CustomZoom|Inpaint|PicReader|PromptAnalyzer/;

function buttons(t: FakeTask) {
  const h = `up-${t.id}`;
  if (t.action === "DESCRIBE") return [1, 2, 3, 4].map((i) => ({ customId: `MJ::Job::PicReader::${i}`, emoji: `${i}`, label: "", style: 2, type: 2 }));
  if (t.grid)
    return [
      ...[1, 2, 3, 4].map((i) => ({ customId: `MJ::JOB::upsample::${i}::${h}`, emoji: "", label: `U${i}`, style: 2, type: 2 })),
      { customId: `MJ::JOB::reroll::0::${h}::SOLO`, emoji: "🔄", label: "", style: 2, type: 2 },
      ...[1, 2, 3, 4].map((i) => ({ customId: `MJ::JOB::variation::${i}::${h}`, emoji: "", label: `V${i}`, style: 2, type: 2 })),
    ];
  return [
    { customId: `MJ::JOB::upsample_v6_2x_subtle::1::${h}::SOLO`, emoji: "", label: "Upscale (Subtle)", style: 2, type: 2 },
    { customId: `MJ::CustomZoom::${h}`, emoji: "🔍", label: "Custom Zoom", style: 2, type: 2 },
    { customId: `MJ::JOB::animate_high::1::${h}::SOLO`, emoji: "", label: "Animate (High motion)", style: 2, type: 2 },
  ];
}

export async function fakeUpstream(opts: { secret?: string; pollsToFinish?: number } = {}): Promise<FakeUpstream> {
  const secret = opts.secret ?? "mj-secret";
  const requests: Recorded[] = [];
  const tasks = new Map<string, FakeTask>();
  let next = 1712205491000;
  const state: FakeUpstream = { url: "", secret, requests, tasks, pollsToFinish: opts.pollsToFinish ?? 2, close: async () => undefined };

  const newTask = (action: string, prompt: string, grid: boolean, extra: Partial<FakeTask> = {}): FakeTask => {
    const t: FakeTask = { id: String(next++), action, status: "SUBMITTED", prompt, polls: 0, grid, ...extra };
    tasks.set(t.id, t);
    return t;
  };

  const view = (t: FakeTask) => {
    const base = {
      id: t.id,
      action: t.action,
      prompt: t.prompt,
      promptEn: t.prompt,
      description: `/${t.action.toLowerCase()}`,
      state: null,
      submitTime: 1,
      startTime: null,
      finishTime: null,
      failReason: null,
      properties: { finalPrompt: t.prompt },
    };
    if (t.status === "MODAL") return { ...base, status: "MODAL", progress: "0%", imageUrl: null, buttons: [] };
    if (t.fail && t.polls >= 1) return { ...base, status: "FAILURE", progress: "", failReason: `upstream exploded ${UPSTREAM_MARKER}`, imageUrl: null, buttons: [] };
    if (t.polls < state.pollsToFinish)
      return { ...base, status: "IN_PROGRESS", progress: `${Math.round((100 * t.polls) / state.pollsToFinish)}%`, imageUrl: t.polls > 0 ? `${state.url}/img/${t.id}-preview.png` : null, buttons: [] };
    const describe =
      t.action === "DESCRIBE"
        ? { finalPrompt: "1️⃣ first prompt --ar 1:1\n\n2️⃣ second prompt\n\n3️⃣ third prompt\n\n4️⃣ fourth prompt" }
        : t.action === "SHORTEN"
          ? { finalPrompt: "## Important tokens\nx\n\n## Shortened prompts\n1️⃣ short one\n\n2️⃣ short two" }
          : {};
    return {
      ...base,
      status: "SUCCESS",
      progress: "100%",
      imageUrl: t.action === "SHORTEN" ? null : `${state.url}/img/${t.id}.png`,
      finishTime: 2,
      properties: { ...base.properties, ...describe },
      buttons: t.action === "SHORTEN" ? [] : buttons(t),
    };
  };

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.statusCode = status;
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(body));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, body: any) => {
    const url = new URL(req.url ?? "/", "http://x");
    const p = url.pathname;
    if (p.startsWith("/img/")) {
      const id = p.slice(5).replace(/\.png$/, "");
      const base = id.replace(/-preview$/, "");
      const t = tasks.get(base);
      const size = id.endsWith("-preview") ? 8 : t?.grid ? 40 : 20;
      const png = await sharp({ create: { width: size, height: size, channels: 3, background: { r: Number(base.slice(-2)) * 2, g: 100, b: 50 } } })
        .png()
        .toBuffer();
      res.setHeader("content-type", "image/png");
      return res.end(png);
    }
    if (req.headers["mj-api-secret"] !== secret) return json(res, 401, { code: 4, description: "bad secret" });
    const ok = (t: FakeTask) => json(res, 200, { code: 1, description: "提交成功", result: t.id, properties: { discordInstanceId: "d1" } });
    const hook = typeof body?.notifyHook === "string" ? { notifyHook: body.notifyHook } : {};
    switch (`${req.method} ${p}`) {
      case "POST /mj/submit/imagine":
        if (/banned/.test(body.prompt)) return json(res, 200, { code: 24, description: "可能包含敏感词", properties: { promptEn: body.prompt, bannedWord: "banned" } });
        if (/leaky/.test(body.prompt)) return json(res, 200, { code: 24, description: UPSTREAM_MARKER, properties: { bannedWord: UPSTREAM_MARKER } });
        return ok(newTask("IMAGINE", body.prompt, true, { fail: /explode/.test(body.prompt), ...hook }));
      case "POST /mj/submit/blend":
        return ok(newTask("BLEND", "", true, hook));
      case "POST /mj/submit/describe":
        return ok(newTask("DESCRIBE", "", false, hook));
      case "POST /mj/submit/shorten":
        return ok(newTask("SHORTEN", body.prompt, false, hook));
      case "POST /mj/insight-face/swap":
        return ok(newTask("SWAP_FACE", "", false, hook));
      case "POST /mj/submit/action": {
        const parent = tasks.get(String(body.taskId));
        if (!parent) return json(res, 404, { code: 3, description: "task not found" });
        const upscale = /upsample::/.test(body.customId);
        const t = newTask(upscale ? "UPSCALE" : parent.action === "DESCRIBE" ? "IMAGINE" : "VARIATION", parent.prompt, !upscale && !/upsample_v6/.test(body.customId), {
          customId: body.customId,
          ...hook,
        });
        if (MODAL_BUTTONS.test(body.customId)) {
          t.status = "MODAL";
          return json(res, 200, { code: 21, description: "Waiting for window confirm", result: t.id, properties: { finalPrompt: parent.prompt, remix: true } });
        }
        return ok(t);
      }
      case "POST /mj/submit/modal": {
        const t = tasks.get(String(body.taskId));
        if (!t || t.status !== "MODAL") return json(res, 200, { code: 4, description: "not modal" });
        t.status = "SUBMITTED";
        t.prompt = body.prompt || t.prompt;
        return ok(t);
      }
    }
    const fetchM = /^\/mj\/task\/([^/]+)\/(fetch|image-seed)$/.exec(p);
    if (req.method === "GET" && fetchM) {
      const t = tasks.get(fetchM[1]!);
      if (!t) return json(res, 404, { code: 3, description: "task not found" });
      if (fetchM[2] === "image-seed") return json(res, 200, { code: 1, description: "成功", result: "424242" });
      const v = view(t);
      if (t.status !== "MODAL") t.polls++;
      return json(res, 200, v);
    }
    return json(res, 404, { code: 3, description: "no such endpoint" });
  };

  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      let body: any;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers as Record<string, string>, body });
      handle(req, res, body).catch((err) => json(res, 500, { error: String(err) }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise<void>((r) => server.close(() => r()));
  return state;
}
