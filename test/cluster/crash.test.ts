// Three gateway processes share one PostgreSQL schema, one Redis prefix and one
// files directory. 300 image-bot tasks and 50 videos are submitted across
// them (a client-side "load balancer" skips an instance that stopped
// answering); one instance is killed with SIGKILL while it runs tasks. The
// test passes only if every task reaches a terminal state exactly once (and
// here: SUCCESS, since the local engine does not fail), every task's
// callbacks arrive at least once and in order, the image-bot account's
// concurrency holds across the instances, and a key's budget and rate limit
// hold across them too.
import t, { type Test } from "tap";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { tempDir, ADMIN_KEY } from "../helpers/app.js";
import { pgSchema } from "../helpers/pg.js";
import { spawnGateway, type Gateway } from "../helpers/process.js";

const IB_TASKS = 300;
const VIDEOS = 50;
const ACCOUNT_CONCURRENCY = 6;
const LEASE_MS = 2_000;
const DONE = new Set(["SUCCESS", "FAILURE", "CANCEL"]);
const REDIS = "redis://127.0.0.1:6379";

interface Delivery {
  webhookId: string;
  taskId: string;
  status: string;
  progress: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// The whole file may take longer than the suite's default per-file timeout.
t.setTimeout(300_000);
const started = Date.now();
const phase = (t: Test, name: string) => t.comment(`${((Date.now() - started) / 1000).toFixed(1)}s ${name}`);

t.test("three instances, one killed with SIGKILL: nothing accepted is lost or done twice", { timeout: 240_000 }, async (t) => {
  const { url, schema } = await pgSchema(t);
  const redisPrefix = `og-crash-${randomUUID()}:`;
  const root = tempDir("omnigate-cluster-");
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const filesDir = path.join(root, "shared-files");
  mkdirSync(filesDir, { recursive: true });

  // The callback receiver: records every delivery, answers 200 (a few first attempts fail, to force retries).
  const deliveries: Delivery[] = [];
  let refused = 0;
  const rx = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      if (refused < 20 && Math.random() < 0.05) {
        refused++;
        res.statusCode = 503;
        return res.end();
      }
      const task = JSON.parse(body) as { id: string; status: string; progress: string };
      deliveries.push({ webhookId: String(req.headers["webhook-id"]), taskId: task.id, status: task.status, progress: Number.parseInt(task.progress || "0", 10) || 0 });
      res.end();
    });
  });
  await new Promise<void>((r) => rx.listen(0, "127.0.0.1", r));
  t.teardown(() => new Promise<void>((r) => rx.close(() => r())));
  const hook = `http://127.0.0.1:${(rx.address() as AddressInfo).port}/cb`;

  const configFile = path.join(root, "config.json");
  writeFileSync(
    configFile,
    JSON.stringify({
      imageBot: { accounts: [{ id: "local", concurrency: ACCOUNT_CONCURRENCY, queueSize: 2000 }], tileSize: 32 },
      video: { concurrency: 2, queueSize: 200 },
      prices: { imageBot: { "*": 1 } },
      tasks: { leaseMs: LEASE_MS, claimPollMs: 200, sweepIntervalMs: 500, callbackTimeoutMs: 2000 },
    }),
  );
  const gateways: Gateway[] = [];
  t.teardown(() => {
    for (const g of gateways) if (g.proc.exitCode === null && g.proc.signalCode === null) g.proc.kill("SIGKILL");
    if (!t.passing()) gateways.forEach((g, i) => console.error(`--- instance ${i} stderr:\n${g.stderr().slice(-3000)}\n--- stdout:\n${g.stdout().slice(-3000)}`));
  });
  const start = (i: number) => {
    const dataDir = path.join(root, `instance-${i}`);
    const g = spawnGateway({
      OMNIGATE_CONFIG: configFile,
      OMNIGATE_DATA_DIR: dataDir,
      OMNIGATE_FILES_DIR: filesDir,
      OMNIGATE_DATABASE_URL: url,
      OMNIGATE_DATABASE_SCHEMA: schema,
      OMNIGATE_REDIS_URL: REDIS,
      OMNIGATE_REDIS_PREFIX: redisPrefix,
      OMNIGATE_INSTANCE_ID: `instance-${i}`,
      OMNIGATE_URL_SECRET: "cluster-test-url-secret",
      OMNIGATE_LOCAL_SIGNING_SECRET: "cluster-test-signing-secret",
      OMNIGATE_BOOTSTRAP_KEY: ADMIN_KEY,
      OMNIGATE_LOG_LEVEL: "info",
      OMNIGATE_LOCAL_TASK_MS: "400",
      OMNIGATE_NOTIFY_HOOK: hook,
      OMNIGATE_CALLBACK_ALLOW_PRIVATE: "1",
      OMNIGATE_CALLBACK_BACKOFF_MS: "100",
    });
    gateways.push(g);
    return g;
  };
  // All three start at once against the empty schema (migrations and the bootstrap key must not race).
  const starting = [start(0), start(1), start(2)];
  const ports = await Promise.all(starting.map((g) => g.ready.then((p) => p.http)));
  phase(t, "three instances listen");
  const alive = [true, true, true];

  const headers = (key = ADMIN_KEY) => ({ authorization: `Bearer ${key}`, "content-type": "application/json", "anthropic-version": "2023-06-01" });
  /** Sends to instance `i`, or the next live one when it does not answer (what a load balancer does). */
  async function send(i: number, p: string, init: { method?: string; body?: unknown; key?: string } = {}): Promise<Response> {
    for (let k = 0; k < 3; k++) {
      const n = (i + k) % 3;
      if (!alive[n]) continue;
      // Twice before an instance counts as gone: a keep-alive connection the
      // server closed just as it was reused fails once without the instance
      // being down (a killed instance refuses at once, so this costs nothing).
      for (let attempt = 0; attempt < 2; attempt++) {
        try {
          return await fetch(`http://127.0.0.1:${ports[n]}${p}`, {
            method: init.method ?? (init.body ? "POST" : "GET"),
            headers: headers(init.key),
            ...(init.body ? { body: JSON.stringify(init.body) } : {}),
          });
        } catch {
          if (attempt === 1) alive[n] = false;
        }
      }
    }
    throw new Error("no instance answers");
  }
  const json = async (i: number, p: string, init: { method?: string; body?: unknown; key?: string } = {}): Promise<any> => (await send(i, p, init)).json();

  // ---- a task submitted on one instance is watched live (SSE) on another
  const watched = (await json(1, "/ib/submit/imagine", { body: { prompt: "watched from elsewhere" } })).result as string;
  const sse = await fetch(`http://127.0.0.1:${ports[2]}/ib/task/${watched}/events`, { headers: headers() });
  const events = await sse.text();
  const statuses = [...events.matchAll(/^event: task\ndata: (.*)$/gm)].map((m) => (JSON.parse(m[1]!) as { status: string }).status);
  t.equal(statuses.at(-1), "SUCCESS", `instance 2 streamed the task instance 1 accepted to its end (${statuses.join(" > ")})`);
  t.ok(statuses.includes("IN_PROGRESS"), "with its progress on the way");
  t.match(events, /event: done/);

  phase(t, "watched across instances");
  // ---- submit, killing instance 0 a third of the way through
  const ibIds: string[] = [];
  const videoIds: string[] = [];
  let leasedAtKill = 0;
  for (let i = 0; i < IB_TASKS; i++) {
    const res = await json(i, "/ib/submit/imagine", { body: { prompt: `cluster task ${i}` } });
    t.ok(res.code === 1 || res.code === 22, `imagine ${i} accepted (code ${res.code})`) || t.comment(JSON.stringify(res));
    ibIds.push(res.result);
    if (i < VIDEOS) {
      const v = await json(i + 1, "/v1/video/generations", { body: { prompt: `cluster video ${i}`, size: "160x90", duration: 1, fps: 4 } });
      t.ok(v.task_id, `video ${i} accepted`) || t.comment(JSON.stringify(v));
      videoIds.push(v.task_id);
    }
    if (i === 100) {
      // Wait until instance 0 holds leases on running tasks, then kill it. On
      // a slow machine the tasks submitted so far may all be done by now, so
      // while it holds none it is given more (checked like the others).
      const db = new pg.Client({ connectionString: url });
      await db.connect();
      try {
        for (let k = 0; k < 250 && leasedAtKill === 0; k++) {
          const r = await db.query(`SELECT count(*)::int AS n FROM "${schema}".tasks WHERE lease_owner = 'instance-0' AND status IN ('SUBMITTED', 'IN_PROGRESS')`);
          leasedAtKill = r.rows[0].n;
          if (leasedAtKill > 0) break;
          if (k % 10 === 9) {
            const extra = await json(0, "/ib/submit/imagine", { body: { prompt: `cluster task extra ${k}` } });
            t.ok(extra.code === 1 || extra.code === 22, `an extra imagine for instance 0 accepted (code ${extra.code})`) || t.comment(JSON.stringify(extra));
            ibIds.push(extra.result);
          }
          await sleep(20);
        }
      } finally {
        await db.end();
      }
      phase(t, `killing instance 0 (${leasedAtKill} leased)`);
      gateways[0]!.proc.kill("SIGKILL");
      await gateways[0]!.exited;
      alive[0] = false;
    }
  }
  t.ok(leasedAtKill > 0, `instance 0 was running ${leasedAtKill} task(s) when it was killed`);

  phase(t, "all submitted");
  // ---- every task reaches a terminal state
  const deadline = Date.now() + 150_000;
  let ibTasks: any[] = [];
  for (;;) {
    ibTasks = await json(1, "/ib/task/list-by-condition", { body: { ids: ibIds } });
    const videos = await Promise.all(videoIds.map((id) => json(2, `/v1/videos/${id}`)));
    const open = ibTasks.filter((x) => !DONE.has(x.status)).length + videos.filter((v) => v.status !== "completed" && v.status !== "failed").length;
    if (open === 0) {
      t.same(
        videos.map((v) => v.status),
        videos.map(() => "completed"),
        "every video completed",
      );
      break;
    }
    if (Date.now() > deadline) {
      t.fail(`${open} task(s) never finished`);
      break;
    }
    await sleep(250);
  }
  phase(t, "all finished");
  t.equal(ibTasks.length, ibIds.length, "every image-bot task is stored");
  t.same(
    ibTasks.filter((x) => x.status !== "SUCCESS").map((x) => `${x.id}:${x.status}:${x.failReason}`),
    [],
    "every image-bot task succeeded (the killed instance's ones were taken over)",
  );
  // A finished image is served by any instance (shared files).
  const img = await send(2, new URL(ibTasks[0].imageUrl).pathname + new URL(ibTasks[0].imageUrl).search);
  t.equal(img.status, 200, "an image made by any instance is served by another");

  // ---- the account's concurrency held across instances: at no time were more than N tasks running
  const edges = ibTasks.flatMap((x) => [
    [x.startTime as number, 1],
    [x.finishTime as number, -1],
  ]) as [number, number][];
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let running = 0;
  let peak = 0;
  for (const [, d] of edges) peak = Math.max(peak, (running += d));
  t.ok(peak <= ACCOUNT_CONCURRENCY, `at most ${ACCOUNT_CONCURRENCY} tasks ran at once across the instances (peak ${peak})`);
  t.ok(peak >= 2, "and the work was shared");

  // ---- callbacks: at least once, in order per task, one terminal outcome
  const until = Date.now() + 30_000;
  const terminalOf = (id: string) => deliveries.filter((d) => d.taskId === id && DONE.has(d.status));
  while (Date.now() < until && ibIds.some((id) => terminalOf(id).length === 0)) await sleep(100);
  const rank = (d: Delivery) => (d.status === "NOT_START" || d.status === "SUBMITTED" ? 0 : d.status === "IN_PROGRESS" ? 1 + d.progress / 1000 : 2);
  let missing = 0;
  let disordered = 0;
  let twice = 0;
  let duplicates = 0;
  for (const id of ibIds) {
    const mine = deliveries.filter((d) => d.taskId === id);
    const terminal = terminalOf(id);
    if (terminal.length === 0) missing++;
    if (new Set(terminal.map((d) => d.webhookId)).size > 1 || new Set(terminal.map((d) => d.status)).size > 1) twice++;
    const firstSeen = new Map<string, Delivery>();
    for (const d of mine) if (!firstSeen.has(d.webhookId)) firstSeen.set(d.webhookId, d);
    duplicates += mine.length - firstSeen.size;
    const order = [...firstSeen.values()].map(rank);
    if (order.some((r, k) => k > 0 && r < order[k - 1]!)) disordered++;
  }
  t.equal(missing, 0, "every task's final callback arrived");
  t.equal(twice, 0, "no task reached a terminal state twice");
  t.equal(disordered, 0, "each task's callbacks arrived in order");
  t.comment(`${deliveries.length} deliveries, ${duplicates} duplicate(s) (same webhook-id), ${refused} refused first attempts`);

  phase(t, "callbacks checked");
  // ---- a budget and a rate limit hold across the two live instances
  const createKey = async (key: object) => (await json(1, "/omnigate.admin.v1.AdminService/CreateKey", { body: { key } })) as { key: { id: string }; secret: string };
  const budgeted = await createKey({ name: "budgeted", budget: 10 });
  t.ok(budgeted.secret, "a key with a budget is created") || t.comment(JSON.stringify(budgeted));
  const budgetAnswers = await Promise.all(Array.from({ length: 30 }, (_, i) => json(i, "/ib/submit/imagine", { body: { prompt: `budget ${i}` }, key: budgeted.secret })));
  t.equal(budgetAnswers.filter((a) => a.code === 1 || a.code === 22).length, 10, "a budget of 10 credits buys exactly 10 one-credit tasks across instances");
  const limited = await createKey({ name: "limited", limits: { requestsPerMinute: 5 } });
  const limitAnswers = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      send(i, "/v1/messages", { key: limited.secret, body: { model: "local-chat", max_tokens: 16, messages: [{ role: "user", content: "hi" }] } }).then((r) => r.status),
    ),
  );
  const ok = limitAnswers.filter((s) => s === 200).length;
  t.ok(ok >= 5 && ok <= 6, `a limit of 5 requests a minute lets about 5 through across instances (got ${ok})`);
  t.equal(limitAnswers.filter((s) => s === 429).length, 20 - ok, "the rest are told 429");

  // Sizing figures for docs/deploy.md: each live instance's memory after the run, and the connections it holds.
  const rss = gateways.slice(1).map((g) => {
    try {
      return Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${g.proc.pid}/status`, "utf8"))?.[1] ?? 0) / 1024);
    } catch {
      return 0;
    }
  });
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const conns = (await db.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")).rows[0].n as number;
  await db.end();
  t.comment(
    `sizing: ${ibIds.length} image-bot tasks + ${VIDEOS} videos in ${((Date.now() - started) / 1000).toFixed(0)} s; RSS of the live instances ${rss.join(" / ")} MB (tsx, not node alone); ${conns} PostgreSQL connections open in the database`,
  );

  for (const g of gateways.slice(1)) g.proc.kill("SIGTERM");
  t.same(await Promise.all(gateways.slice(1).map((g) => g.exited)), [0, 0], "the live instances stop gracefully");
});
