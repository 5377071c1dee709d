// The account pool over HTTP: queueing on an account with concurrency 1
// (code 22 with numberOfQueues), a full queue (code 24), account filters,
// chooseSameChannel, and the counts the account endpoints show.
import t from "tap";
import { ADMIN_KEY, client, startIb } from "./ib-helpers.js";

t.test("queueing, filters and channels", async (t) => {
  const s = await startIb({
    taskMs: 400,
    imageBot: {
      accounts: [
        { id: "solo", channelId: "ch-1", instanceId: "inst-1", remark: "main pool", concurrency: 1, queueSize: 2 },
        { id: "relaxed", channelId: "ch-2", instanceId: "inst-2", modes: ["RELAX"], remark: "backup", concurrency: 1, queueSize: 5, botTypes: ["ANIME_BOT"] },
        { id: "twin", channelId: "ch-2", instanceId: "inst-3", modes: ["TURBO"], remark: "spare", concurrency: 2, queueSize: 5, remix: true },
      ],
    },
  });
  t.teardown(() => s.close());
  const ib = client(s);
  const admin = client(s, ADMIN_KEY);

  t.test("concurrency 1: the first runs, the next wait with their place in line, then the queue is full", async (t) => {
    const f = { instanceId: "inst-1" };
    const a = await ib.post("/submit/imagine", { prompt: "first", accountFilter: f });
    const b = await ib.post("/submit/imagine", { prompt: "second", accountFilter: f });
    const c = await ib.post("/submit/imagine", { prompt: "third", accountFilter: f });
    const d = await ib.post("/submit/imagine", { prompt: "fourth", accountFilter: f });
    t.match(a.body, { code: 1, result: /^\d+$/ });
    t.match(b.body, { code: 22, description: "In queue, 0 task(s) ahead", properties: { numberOfQueues: 1 }, result: /^\d+$/ });
    t.match(c.body, { code: 22, description: "In queue, 1 task(s) ahead", properties: { numberOfQueues: 2 } });
    t.same(d, { status: 200, body: { code: 24, description: "account unavailable: every matching account's queue is full", properties: {}, result: null } });
    t.match((await admin.get("/account/solo/fetch")).body, { running: 1, queued: 2 });
    t.equal((await ib.get(`/task/${b.body.result}/fetch`)).body.status, "NOT_START", "waiting tasks are NOT_START");
    const done = await ib.waitFor(c.body.result);
    t.equal(done.status, "SUCCESS", "the last one ran in its turn");
    const times = await Promise.all([a, b, c].map(async (x) => (await ib.get(`/task/${x.body.result}/fetch`)).body));
    t.ok(times[0].finishTime <= times[1].startTime && times[1].finishTime <= times[2].startTime, "one after another");
    t.match((await admin.get("/account/solo/fetch")).body, { running: 0, queued: 0 });
  });

  t.test("filters pick the account; the bot type must be served", async (t) => {
    const byMode = await ib.post("/submit/imagine", { prompt: "relaxed", botType: "ANIME_BOT", accountFilter: { modes: ["RELAX"] } });
    t.equal(byMode.body.code, 1);
    t.match((await ib.waitFor(byMode.body.result)).properties, { discordInstanceId: "inst-2" });
    const wrongBot = await ib.post("/submit/imagine", { prompt: "x", accountFilter: { modes: ["RELAX"] } });
    t.match(wrongBot.body, { code: 24, description: "account unavailable: no enabled account matches the request" }, "relaxed serves ANIME_BOT only");
    const byRemark = await ib.post("/submit/imagine", { prompt: "spare", accountFilter: { remark: "SPA" } });
    t.match((await ib.waitFor(byRemark.body.result)).properties, { discordInstanceId: "inst-3" });
    const byRemix = await ib.post("/submit/imagine", { prompt: "remix", accountFilter: { remix: true } });
    t.match((await ib.waitFor(byRemix.body.result)).properties, { discordInstanceId: "inst-3" });
    const byChannel = await ib.post("/submit/imagine", { prompt: "ch", accountFilter: { channelId: "ch-1" } });
    t.match((await ib.waitFor(byChannel.body.result)).properties, { discordInstanceId: "inst-1" });
    const none = await ib.post("/submit/imagine", { prompt: "x", accountFilter: { instanceId: "nope" } });
    t.equal(none.body.code, 24);
  });

  t.test("chooseSameChannel keeps a follow-up on its parent's channel", async (t) => {
    const parent = await ib.run("/submit/imagine", { prompt: "on channel 2", accountFilter: { instanceId: "inst-3" } });
    const ids = new Set<string>();
    for (let i = 1; i <= 4; i++) {
      const up = await ib.post("/submit/action", { taskId: parent.id, customId: parent.buttons[i - 1].customId, chooseSameChannel: true });
      ids.add((await ib.waitFor(up.body.result)).properties.discordInstanceId);
    }
    t.same([...ids], ["inst-3"], "twin is the only PRIMARY_BOT account on ch-2");
    await admin.post("/account/twin/update", { enabled: false });
    const blocked = await ib.post("/submit/action", { taskId: parent.id, customId: parent.buttons[0].customId, chooseSameChannel: true });
    t.match(blocked.body, { code: 24 }, "no enabled account left on that channel");
    const elsewhere = await ib.post("/submit/action", { taskId: parent.id, customId: parent.buttons[0].customId });
    t.match((await ib.waitFor(elsewhere.body.result)).properties, { discordInstanceId: "inst-1" }, "without it, any account");
  });
});
