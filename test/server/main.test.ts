// The gateway as a process: startup, keys, bad configuration, and a graceful
// shutdown on SIGTERM while streams are open.
import t from "tap";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { ChatService, Role } from "../../gen/omnigate/chat/v1/chat_pb.js";
import { ModelService } from "../../gen/omnigate/model/v1/model_pb.js";
import { tempDir } from "../helpers/app.js";
import { listModels, spawnGateway } from "../helpers/process.js";

async function stop(g: ReturnType<typeof spawnGateway>): Promise<number | null> {
  g.proc.kill("SIGTERM");
  return g.exited;
}

t.test("first start prints an admin key once; it works; a restart prints none", async (t) => {
  const dataDir = tempDir();
  const g1 = spawnGateway({ OMNIGATE_DATA_DIR: dataDir, OMNIGATE_LOG_LEVEL: "info" });
  const p1 = await g1.ready;
  const health = await fetch(`http://127.0.0.1:${p1.http}/healthz`);
  t.equal(health.status, 200);
  t.same(await health.json(), { status: "ok" });
  const key = /\n {2}(sk-og-\S+)\n/.exec(g1.stdout())?.[1];
  t.ok(key, "an admin key was printed");
  t.equal(await listModels(p1.http, key!), 200, "the printed key works");
  t.equal(await listModels(p1.http, "sk-og-wrong"), 401);
  t.equal(await stop(g1), 0, "exits 0 on SIGTERM");

  const g2 = spawnGateway({ OMNIGATE_DATA_DIR: dataDir, OMNIGATE_LOG_LEVEL: "info" });
  const p2 = await g2.ready;
  t.notMatch(g2.stdout(), /sk-og-/, "no key printed on the second start");
  t.equal(await listModels(p2.http, key!), 200, "the key survived the restart");
  t.equal(await stop(g2), 0);
});

t.test("the bootstrap key works after two restarts", async (t) => {
  const dataDir = tempDir();
  const env = { OMNIGATE_DATA_DIR: dataDir, OMNIGATE_BOOTSTRAP_KEY: "sk-bootstrap-abcdefgh", OMNIGATE_LOG_LEVEL: "info" };
  for (let i = 0; i < 3; i++) {
    const g = spawnGateway(env);
    const p = await g.ready;
    t.notMatch(g.stdout(), /created an admin API key/, `start ${i + 1}: no generated key`);
    t.equal(await listModels(p.http, "sk-bootstrap-abcdefgh"), 200, `start ${i + 1}: bootstrap key accepted`);
    t.equal(await stop(g), 0);
  }
});

t.test("a bad setting stops startup with a message that names it", async (t) => {
  const g = spawnGateway({ OMNIGATE_DATA_DIR: tempDir(), OMNIGATE_PORT: "not-a-port" });
  t.equal(await g.exited, 2);
  t.match(g.stderr(), /OMNIGATE_PORT \("not-a-port"\)/);
});

t.test("an unwritable data dir stops startup with a clear message", async (t) => {
  const dir = tempDir();
  const file = path.join(dir, "file");
  writeFileSync(file, "x");
  const g = spawnGateway({ OMNIGATE_DATA_DIR: path.join(file, "data") });
  t.equal(await g.exited, 2);
  t.match(g.stderr(), /OMNIGATE_DATA_DIR: .* is not a writable directory/);
});

t.test("SIGTERM lets open streams finish, then exits 0", async (t) => {
  const key = "sk-bootstrap-shutdown1";
  const g = spawnGateway({ OMNIGATE_DATA_DIR: tempDir(), OMNIGATE_BOOTSTRAP_KEY: key, OMNIGATE_LOCAL_CHUNK_MS: "25", OMNIGATE_LOG_LEVEL: "info" });
  const p = await g.ready;
  const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");
  const input = { model: "local-chat", turns: [{ role: Role.USER, parts: [{ kind: { case: "text" as const, value: { text: words } } }] }] };
  const headers = { authorization: `Bearer ${key}` };
  const clients = [
    createClient(ChatService, createConnectTransport({ baseUrl: `http://127.0.0.1:${p.http}`, httpVersion: "1.1" })),
    createClient(ChatService, createGrpcTransport({ baseUrl: `http://127.0.0.1:${p.grpc}` })),
  ];
  let signalled = false;
  const runs = clients.map(async (c) => {
    let text = "";
    let finished = false;
    for await (const ev of c.streamGenerate({ input }, { headers })) {
      if (ev.event.case === "partDelta" && ev.event.value.delta.case === "text") {
        text += ev.event.value.delta.value;
        if (!signalled) {
          signalled = true;
          g.proc.kill("SIGTERM");
        }
      }
      if (ev.event.case === "finish") finished = true;
    }
    return { text, finished };
  });
  const results = await Promise.all(runs);
  for (const r of results) {
    t.equal(r.text, `You said: ${words}`, "the whole answer arrived");
    t.ok(r.finished, "the stream ended with its finish event");
  }
  t.equal(await g.exited, 0, "exit code 0");
  t.match(g.stdout(), /shutting down/);
  t.match(g.stdout(), /"msg":"stopped"/);
  // New connections are refused once it stopped.
  const after = await fetch(`http://127.0.0.1:${p.http}/healthz`).then(
    () => "answered",
    () => "refused",
  );
  t.equal(after, "refused");
  void ModelService;
});
