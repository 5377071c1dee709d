// With video.notifyHook set, every finished video is announced as OpenAI
// announces it: a signed video.completed or video.failed event naming the
// video, which the openai SDK's own webhooks.unwrap() verifies and parses.
import t from "tap";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import OpenAI from "openai";
import { ADMIN_KEY, startServer } from "../../helpers/app.js";
import { until } from "./helpers.js";

const SECRET = "whsec_" + Buffer.from("video-webhook-secret-32-bytes-ok").toString("base64");

t.test("finished videos are announced, signed, in OpenAI's event shape", async (t) => {
  const got: { headers: Record<string, string>; body: string }[] = [];
  const rx = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      got.push({ headers: req.headers as Record<string, string>, body });
      res.end("ok");
    });
  });
  await new Promise<void>((r) => rx.listen(0, "127.0.0.1", r));
  const hook = `http://127.0.0.1:${(rx.address() as AddressInfo).port}/hooks/video`;
  const server = await startServer({
    config: {
      local: { blocklist: ["forbidden-topic"], chunkDelayMs: 0, signingSecret: "", faultInjection: true, taskMs: 100 },
      tasks: { callbackSecret: SECRET, callbackAllowPrivate: true },
      video: { notifyHook: hook },
    } as never,
  });
  t.teardown(async () => {
    await server.close();
    await new Promise<void>((r) => rx.close(() => r()));
  });
  const client = new OpenAI({ apiKey: ADMIN_KEY, baseURL: server.baseUrl + "/v1", maxRetries: 0, webhookSecret: SECRET });
  const ok = await client.videos.create({ model: "sora-2", prompt: "a lighthouse at dusk", seconds: "4", size: "720x1280" });
  const bad = await client.videos.create({ model: "sora-2", prompt: "a forbidden-topic poster", seconds: "4", size: "720x1280" });
  await until(
    async () => got.length,
    (n) => n >= 2,
  );
  const events = await Promise.all(got.map((r) => client.webhooks.unwrap(r.body, r.headers)));
  const byVideo = new Map(events.map((e) => [(e.data as { id: string }).id, e]));
  t.match(byVideo.get(ok.id), { object: "event", type: "video.completed" }, "the finished video");
  t.match(byVideo.get(bad.id), { object: "event", type: "video.failed" }, "the failed one");
  t.ok(events.every((e) => /^evt_/.test(e.id) && typeof e.created_at === "number"));
  t.equal(got.length, 2, "one event per video: nothing for queued or running");
  await t.rejects(client.webhooks.unwrap(got[0]!.body, { ...got[0]!.headers, "webhook-signature": "v1,AAAA" }), "a forged signature does not verify");
});
