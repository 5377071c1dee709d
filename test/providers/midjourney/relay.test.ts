// The midjourney-proxy upstream through the gateway, against a fake
// midjourney-proxy: submit, poll, re-hosted results, buttons mapped both
// ways, modal actions, describe, seed, failures, callbacks that wake the
// poller, and a restart that resumes polling without submitting twice.
import t from "tap";
import { createParser } from "eventsource-parser";
import { startServer, tempDir, type TestServer } from "../../helpers/app.js";
import { ADMIN_KEY, USER_KEY, addKey, client, download, image } from "../../facades/image-bot/ib-helpers.js";
import { fakeUpstream, UPSTREAM_MARKER, type FakeUpstream } from "./fake-upstream.js";

async function gateway(up: FakeUpstream, extra: { apiKey?: string; pollIntervalMs?: number; publicUrl?: string; dataDir?: string } = {}): Promise<TestServer> {
  const s = await startServer({
    ...(extra.dataDir ? { dataDir: extra.dataDir } : {}),
    config: {
      channels: [{ name: "mj1", provider: "midjourney", baseUrl: up.url, apiKey: extra.apiKey ?? up.secret }],
      imageBot: { accounts: [{ id: "mj", channel: "mj1", instanceId: "mj-instance" }], pollIntervalMs: extra.pollIntervalMs ?? 20 },
      tasks: { sweepIntervalMs: 0 },
      ...(extra.publicUrl ? { publicUrl: extra.publicUrl } : {}),
    } as never,
  });
  await addKey(s, "key_user", USER_KEY).catch(() => undefined);
  return s;
}

const calls = (up: FakeUpstream, path: string) => up.requests.filter((r) => r.path === path);

t.test("relay through a midjourney-proxy upstream", async (t) => {
  const up = await fakeUpstream();
  const s = await gateway(up);
  t.teardown(async () => {
    await s.close();
    await up.close();
  });
  const ib = client(s);

  const sub = await ib.post("/submit/imagine", { prompt: "a castle --ar 1:1", botType: "ANIME_BOT" });
  t.match(sub.body, { code: 1 });
  const events: any[] = [];
  const res = await fetch(`${s.baseUrl}/ib/task/${sub.body.result}/events`, { headers: { authorization: `Bearer ${USER_KEY}` } });
  const parser = createParser({ onEvent: (e) => e.event === "task" && events.push(JSON.parse(e.data)) });
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(Buffer.from(chunk).toString());
  const grid = events.at(-1);

  t.test("imagine: submitted with the channel's secret, polled, the result re-hosted", async (t) => {
    const [submit] = calls(up, "/mj/submit/imagine");
    t.equal(submit!.headers["mj-api-secret"], up.secret);
    t.match(submit!.body, { prompt: "a castle --ar 1:1", botType: "NIJI_JOURNEY", base64Array: [] });
    t.match(grid, { status: "SUCCESS", action: "IMAGINE", progress: "100%", properties: { discordInstanceId: "mj-instance", finalPrompt: "a castle --ar 1:1" } });
    t.ok(
      events.some((e) => e.status === "IN_PROGRESS" && e.progress === "50%"),
      "the upstream's progress shows",
    );
    const preview = events.find((e) => e.status === "IN_PROGRESS" && e.imageUrl);
    t.ok(preview?.imageUrl.startsWith(`${s.baseUrl}/files/`), "the preview is re-hosted too");
    t.ok(grid.imageUrl.startsWith(`${s.baseUrl}/files/`), "clients get the gateway's own URL");
    const ours = await download(grid.imageUrl);
    const theirs = await download(`${up.url}/img/${submit && up.tasks.keys().next().value}.png`);
    t.same([ours.width, ours.height], [40, 40]);
    t.same(ours.bytes, theirs.bytes, "the same bytes");
    t.equal(grid.buttons.length, 9);
    t.notOk(
      grid.buttons.some((b: { customId: string }) => b.customId.includes("up-")),
      "buttons carry the gateway's own hash",
    );
  });

  t.test("U2: the upstream gets its own customId and task id; unknown upstream buttons are dropped", async (t) => {
    const u2 = await ib.press(grid, "U2");
    const upstreamGrid = [...up.tasks.values()].find((x) => x.action === "IMAGINE")!;
    t.same(calls(up, "/mj/submit/action")[0]!.body, { taskId: upstreamGrid.id, customId: `MJ::JOB::upsample::2::up-${upstreamGrid.id}` });
    t.match(u2, { action: "UPSCALE", status: "SUCCESS" });
    t.same((await download(u2.imageUrl)).width, 20);
    t.same(
      u2.buttons.map((b: { label: string }) => b.label),
      ["Upscale (Subtle)", "Custom Zoom"],
    );

    t.test("custom zoom: MODAL here, then action + modal upstream", async (t) => {
      const cz = await ib.post("/submit/action", { taskId: u2.id, customId: u2.buttons[1].customId });
      t.equal((await ib.get(`/task/${cz.body.result}/fetch`)).body.status, "MODAL");
      t.equal((await ib.post("/submit/modal", { taskId: cz.body.result, prompt: "a castle --zoom 1.5" })).body.code, 1);
      const done = await ib.waitFor(cz.body.result);
      t.match(done, { status: "SUCCESS", action: "ZOOM" });
      const modal = calls(up, "/mj/submit/modal").at(-1)!;
      t.match(modal.body, { prompt: "a castle --zoom 1.5" });
      t.equal(up.tasks.get(modal.body.taskId)!.customId, `MJ::CustomZoom::up-${[...up.tasks.values()].find((x) => x.action === "UPSCALE")!.id}`);
    });
  });

  t.test("describe, then imagine from a prompt through both modals", async (t) => {
    const d = await ib.run("/submit/describe", { base64: await image(16, 16) });
    t.match(calls(up, "/mj/submit/describe")[0]!.body, { base64: /^data:image\/png;base64,/ });
    t.equal(String(d.properties.finalPrompt).split("\n\n").length, 4);
    const r = await ib.post("/submit/action", { taskId: d.id, customId: "MJ::Job::PicReader::2" });
    t.match((await ib.get(`/task/${r.body.result}/fetch`)).body, { status: "MODAL", prompt: "second prompt" });
    await ib.post("/submit/modal", { taskId: r.body.result });
    t.match(await ib.waitFor(r.body.result), { status: "SUCCESS", action: "IMAGINE" });
    t.match(calls(up, "/mj/submit/modal").at(-1)!.body, { prompt: "second prompt" });
  });

  t.test("shorten, blend and face swap relay too", async (t) => {
    const sh = await ib.run("/submit/shorten", { prompt: "a long long prompt" });
    t.match(sh, { status: "SUCCESS", imageUrl: "" });
    t.match(sh.properties.finalPrompt, /Shortened prompts/);
    const bl = await ib.run("/submit/blend", { base64Array: [await image(8, 8), await image(8, 8, "#00f")], dimensions: "SQUARE" });
    t.match(calls(up, "/mj/submit/blend")[0]!.body, { dimensions: "SQUARE", base64Array: [/^data:image\/png/, /^data:image\/png/] });
    t.equal(bl.buttons.length, 9);
    const sw = await ib.post("/face-service/swap", { sourceBase64: await image(8, 8), targetBase64: await image(8, 8) });
    t.match(await ib.waitFor(sw.body.result), { status: "SUCCESS", action: "SWAP_FACE" });
    t.equal(calls(up, "/mj/insight-face/swap").length, 1);
  });

  t.test("image-seed comes from the upstream", async (t) => {
    t.same((await ib.get(`/task/${grid.id}/image-seed`)).body, { code: 1, description: "success", properties: {}, result: "424242" });
  });

  t.test("upstream refusals and failures fail the task with a clear reason in the gateway's words and mark the account", async (t) => {
    const banned = await ib.post("/submit/imagine", { prompt: "something banned" });
    t.match(
      await ib.waitFor(banned.body.result),
      { status: "FAILURE", progress: "", failReason: "failed: the upstream refused the task: code 24 (banned prompt) (banned word: banned)" },
      "the banned word is the client's own",
    );
    const leaky = await ib.post("/submit/imagine", { prompt: "leaky please" });
    const refused = await ib.waitFor(leaky.body.result);
    t.match(refused, { status: "FAILURE", failReason: "failed: the upstream refused the task: code 24 (banned prompt)" });
    t.notMatch(JSON.stringify(refused), UPSTREAM_MARKER, "neither the upstream's description nor a banned word not in the prompt");
    const boom = await ib.post("/submit/imagine", { prompt: "explode please" });
    const failed = await ib.waitFor(boom.body.result);
    t.match(failed, { status: "FAILURE", failReason: "failed: the upstream task failed" });
    t.notMatch(JSON.stringify(failed), UPSTREAM_MARKER, "the upstream's failReason stays in the log");
    const account = (await client(s, ADMIN_KEY).get("/account/mj/fetch")).body;
    t.match(account, { channel: "mj1", lastError: "failed: the upstream task failed" });
    t.notMatch(JSON.stringify(account), UPSTREAM_MARKER);
  });
});

t.test("a wrong mj-api-secret fails the task, naming the problem", async (t) => {
  const up = await fakeUpstream();
  const s = await gateway(up, { apiKey: "wrong" });
  t.teardown(async () => {
    await s.close();
    await up.close();
  });
  const r = await client(s).post("/submit/imagine", { prompt: "x" });
  t.match(await client(s).waitFor(r.body.result), { status: "FAILURE", failReason: "failed: the midjourney upstream mj1 refused the channel's mj-api-secret" });
});

t.test("the upstream's callback wakes the poller", async (t) => {
  const up = await fakeUpstream({ pollsToFinish: 1 });
  const s = await gateway(up, { pollIntervalMs: 60_000, publicUrl: "http://gateway.example" });
  t.teardown(async () => {
    await s.close();
    await up.close();
  });
  const ib = client(s);
  const r = await ib.post("/submit/imagine", { prompt: "wake me" });
  await ib.waitFor(r.body.result, ["IN_PROGRESS"]);
  const hook = calls(up, "/mj/submit/imagine")[0]!.body.notifyHook as string;
  t.match(hook, /^http:\/\/gateway\.example\/upstream\/midjourney\/mj1\/notify\?token=[0-9a-f]{32}$/);
  const upstreamId = [...up.tasks.keys()][0]!;
  const local = hook.replace("http://gateway.example", s.baseUrl);
  const bad = await fetch(local.replace(/token=\w+/, "token=nope"), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: upstreamId }) });
  t.equal(bad.status, 404, "a wrong token is refused");
  const ok = await fetch(local, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: upstreamId, status: "SUCCESS" }) });
  t.equal(ok.status, 204);
  t.equal((await ib.waitFor(r.body.result, ["SUCCESS"], 5_000)).status, "SUCCESS", "finished long before the next scheduled poll");
});

t.test("a restart resumes polling the upstream task; nothing is submitted twice", async (t) => {
  const up = await fakeUpstream({ pollsToFinish: 1000 });
  const dir = tempDir();
  const s1 = await gateway(up, { dataDir: dir });
  const r = await client(s1).post("/submit/imagine", { prompt: "long one" });
  await client(s1).waitFor(r.body.result, ["IN_PROGRESS"]);
  await s1.close();
  up.pollsToFinish = 0;
  const s2 = await gateway(up, { dataDir: dir });
  t.teardown(async () => {
    await s2.close();
    await up.close();
  });
  t.match(await client(s2).waitFor(r.body.result), { status: "SUCCESS" });
  t.equal(calls(up, "/mj/submit/imagine").length, 1, "one submission");
});
