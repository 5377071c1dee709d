// A gateway killed with SIGKILL while videos are being made loses none: the
// restarted process (same data dir) resumes the running task and the queued
// ones, and each ends completed with a real file.
import t from "tap";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { spawnGateway, type Gateway } from "../../helpers/process.js";
import { ADMIN_KEY, tempDir } from "../../helpers/app.js";
import { probeBytes, until } from "../../facades/video/helpers.js";

const dataDir = tempDir("omnigate-video-restart-");
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
const configFile = path.join(dataDir, "config.json");
// One render at a time: one task runs, the others wait in the queue when the process dies.
writeFileSync(configFile, JSON.stringify({ video: { concurrency: 1 } }));

const env = (taskMs: number) => ({
  OMNIGATE_DATA_DIR: dataDir,
  OMNIGATE_CONFIG: configFile,
  OMNIGATE_BOOTSTRAP_KEY: ADMIN_KEY,
  OMNIGATE_LOG_LEVEL: "info",
  OMNIGATE_LOCAL_TASK_MS: String(taskMs),
});
const headers = { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" };
const running: Gateway[] = [];
t.teardown(() => {
  for (const g of running) if (g.proc.exitCode === null) g.proc.kill("SIGKILL");
});

async function start(taskMs: number): Promise<string> {
  const g = spawnGateway(env(taskMs));
  running.push(g);
  const { http } = await g.ready;
  return `http://127.0.0.1:${http}`;
}

t.test("kill -9 while a video renders and two wait: nothing is lost", async (t) => {
  let base = await start(20_000);
  const ids: string[] = [];
  for (const prompt of ["first, rendering when killed", "second, queued", "third, queued"]) {
    const res = await fetch(`${base}/v1/video/generations`, { method: "POST", headers, body: JSON.stringify({ prompt, size: "160x90", duration: 1, fps: 4 }) });
    t.equal(res.status, 200);
    ids.push(((await res.json()) as { task_id: string }).task_id);
  }
  const get = async (id: string) => (await (await fetch(`${base}/v1/videos/${id}`, { headers })).json()) as { status: string; progress: number };
  const first = await until(
    () => get(ids[0]!),
    (v) => v.status === "in_progress" && v.progress > 0,
  );
  t.equal(first.status, "in_progress", "the first is rendering");
  t.same([(await get(ids[1]!)).status, (await get(ids[2]!)).status], ["queued", "queued"], "the others wait");

  const g = running[0]!;
  g.proc.kill("SIGKILL");
  t.equal(await g.exited, null, "killed, not exited");

  base = await start(200);
  for (const id of ids) {
    const v = await until(
      () => get(id),
      (x) => x.status === "completed" || x.status === "failed",
      600,
    );
    t.equal(v.status, "completed", `${id} completed after the restart`);
    const content = await fetch(`${base}/v1/videos/${id}/content`, { headers });
    t.equal(content.headers.get("content-type"), "video/mp4");
    t.match(await probeBytes(new Uint8Array(await content.arrayBuffer())), { width: 160, height: 90, fps: 4, duration: 1 });
  }
  const list = (await (await fetch(`${base}/v1/videos?order=asc`, { headers })).json()) as { data: Array<{ id: string }> };
  t.same(
    list.data.map((v) => v.id),
    ids,
    "exactly the three, in order",
  );
  running[1]!.proc.kill("SIGTERM");
  await running[1]!.exited;
});
