// kill -9 in the middle of running tasks: the gateway runs as a child process,
// is killed with SIGKILL and restarted on the same data dir. Running and
// queued tasks resume, a MODAL task still waits, pending callbacks are
// delivered; with a short timeout, tasks that cannot finish fail with a clear
// reason. No task stays unfinished.
import t from "tap";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tempDir } from "../../helpers/app.js";
import { spawnGateway, type Gateway } from "../../helpers/process.js";
import { ADMIN_KEY, image } from "./ib-helpers.js";

function gateway(dataDir: string, env: Record<string, string>): Gateway {
  return spawnGateway({
    OMNIGATE_DATA_DIR: dataDir,
    OMNIGATE_BOOTSTRAP_KEY: ADMIN_KEY,
    OMNIGATE_LOG_LEVEL: "info",
    OMNIGATE_IB_TILE_SIZE: "32",
    OMNIGATE_IB_ACCOUNTS: JSON.stringify([{ id: "local", concurrency: 1, queueSize: 10 }]),
    OMNIGATE_CALLBACK_ALLOW_PRIVATE: "1",
    OMNIGATE_CALLBACK_BACKOFF_MS: "100",
    ...env,
  });
}

function api(port: number) {
  const headers = { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" };
  const base = `http://127.0.0.1:${port}/ib`;
  return {
    async post(path: string, body: unknown): Promise<any> {
      return (await fetch(base + path, { method: "POST", headers, body: JSON.stringify(body) })).json();
    },
    async task(id: string): Promise<any> {
      return (await fetch(`${base}/task/${id}/fetch`, { headers })).json();
    },
    async waitFor(id: string, statuses: string[], timeoutMs = 30_000): Promise<any> {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const task = await this.task(id);
        if (statuses.includes(task.status)) return task;
        if (Date.now() > end) throw new Error(`task ${id} stuck in ${task.status}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

async function kill(g: Gateway): Promise<void> {
  g.proc.kill("SIGKILL");
  await g.exited;
}

const DONE = ["SUCCESS", "FAILURE", "CANCEL"];

t.test("running and queued tasks resume after kill -9; a MODAL task still waits", async (t) => {
  const dir = tempDir();
  const g1 = gateway(dir, { OMNIGATE_LOCAL_TASK_MS: "1500" });
  t.teardown(() => g1.proc.kill("SIGKILL"));
  const a1 = api((await g1.ready).http);
  const described = await a1.post("/submit/describe", { base64: await image(20, 20) });
  await a1.waitFor(described.result, ["SUCCESS"]);
  const modal = await a1.post("/submit/action", { taskId: described.result, customId: "MJ::Job::PicReader::1" });
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await a1.post("/submit/imagine", { prompt: `survivor ${i}` })).result);
  const running = await a1.waitFor(ids[0]!, ["IN_PROGRESS"]);
  t.match(running.progress, /^\d+%$/);
  t.equal((await a1.task(ids[1]!)).status, "NOT_START");
  await kill(g1);

  const g2 = gateway(dir, { OMNIGATE_LOCAL_TASK_MS: "150" });
  t.teardown(() => g2.proc.kill("SIGKILL"));
  const a2 = api((await g2.ready).http);
  for (const id of ids) {
    const done = await a2.waitFor(id, DONE);
    t.match(done, { status: "SUCCESS", progress: "100%" }, `task ${id} finished after the restart`);
    t.ok(done.imageUrl && (await fetch(done.imageUrl)).status === 200, "its image is served");
  }
  t.ok(Number.parseInt(running.progress, 10) <= 100);
  t.equal((await a2.task(modal.result)).status, "MODAL", "the MODAL task still waits");
  t.equal((await a2.post("/submit/modal", { taskId: modal.result })).code, 1);
  t.equal((await a2.waitFor(modal.result, DONE)).status, "SUCCESS");
  g2.proc.kill("SIGTERM");
  t.equal(await g2.exited, 0, "a graceful stop while idle");
});

t.test("with a short timeout, tasks that cannot finish fail with a clear reason; pending callbacks survive", async (t) => {
  let healthy = false;
  const bodies: any[] = [];
  const rx = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      if (healthy) bodies.push(JSON.parse(body));
      res.statusCode = healthy ? 200 : 503;
      res.end();
    });
  });
  await new Promise<void>((r) => rx.listen(0, "127.0.0.1", r));
  t.teardown(() => new Promise<void>((r) => rx.close(() => r())));
  const hook = `http://127.0.0.1:${(rx.address() as AddressInfo).port}/cb`;

  const dir = tempDir();
  const g1 = gateway(dir, { OMNIGATE_LOCAL_TASK_MS: "60000", OMNIGATE_NOTIFY_HOOK: hook });
  t.teardown(() => g1.proc.kill("SIGKILL"));
  const a1 = api((await g1.ready).http);
  const stuck = (await a1.post("/submit/imagine", { prompt: "never finishes" })).result;
  const waiting = (await a1.post("/submit/imagine", { prompt: "never starts" })).result;
  await a1.waitFor(stuck, ["IN_PROGRESS"]);
  await kill(g1);

  healthy = true;
  const g2 = gateway(dir, { OMNIGATE_LOCAL_TASK_MS: "60000", OMNIGATE_NOTIFY_HOOK: hook, OMNIGATE_TASK_TIMEOUT_MS: "1500", OMNIGATE_TASK_SWEEP_MS: "200" });
  t.teardown(() => g2.proc.kill("SIGKILL"));
  const a2 = api((await g2.ready).http);
  const s = await a2.waitFor(stuck, DONE);
  t.match(s, { status: "FAILURE", progress: "", failReason: "timed out: no result within 2s" });
  const w = await a2.waitFor(waiting, DONE);
  t.match(w, { status: "FAILURE", failReason: /^timed out: the task waited more than 2s in its queue$/ });
  for (let i = 0; i < 200 && !bodies.some((b) => b.id === stuck && b.status === "FAILURE"); i++) await new Promise((r) => setTimeout(r, 25));
  const forStuck = bodies.filter((b) => b.id === stuck).map((b) => b.status);
  t.equal(forStuck[0], "SUBMITTED", "the callback the receiver refused before the crash was delivered after it");
  t.equal(forStuck.at(-1), "FAILURE");
});
