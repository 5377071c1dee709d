// A whole gateway on PostgreSQL: an admin creates a key, the key chats
// (Anthropic SDK) and runs an image-bot imagine to SUCCESS whose image is
// served; usage and budgets land in PostgreSQL, and a second gateway on the same
// schema (another data dir, as another instance would have) knows the key and,
// sharing the files directory, serves the first one's image URL.
import t from "tap";
import { rmSync } from "node:fs";
import Anthropic from "@anthropic-ai/sdk";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { AdminService } from "../../gen/omnigate/admin/v1/admin_pb.js";
import { ADMIN_KEY, startServer, tempDir, type TestServer } from "../helpers/app.js";
import { pgSchema } from "../helpers/pg.js";
import { client } from "../facades/image-bot/ib-helpers.js";

const { url, schema } = await pgSchema(t);
const filesDir = tempDir("omnigate-shared-files-");
t.teardown(() => rmSync(filesDir, { recursive: true, force: true }));

const start = (): Promise<TestServer> =>
  startServer({
    config: {
      databaseUrl: url,
      databaseSchema: schema,
      databasePoolSize: 4,
      filesDir,
      local: { taskMs: 100 },
      imageBot: { tileSize: 32, pollIntervalMs: 50 },
      tasks: { sweepIntervalMs: 0 },
    } as never,
  });

const bearer = (k: string) => ({ headers: { authorization: `Bearer ${k}` } });

t.test("a gateway on PostgreSQL serves keys, chat and image-bot tasks", async (t) => {
  const server = await start();
  t.teardown(() => server.close());
  t.equal(server.deps.storage.kind, "postgres");

  const admin = createClient(AdminService, createConnectTransport({ baseUrl: server.baseUrl, httpVersion: "1.1" }));
  const created = await admin.createKey({ key: { name: "pg user", budget: 1000 } }, bearer(ADMIN_KEY));
  t.match(created.secret, /^sk-/);
  const stored = await server.deps.storage.keys.get(created.key!.id);
  t.match(stored, { name: "pg user", budget: 1000 }, "the key is in PostgreSQL");

  const claude = new Anthropic({ baseURL: server.baseUrl, apiKey: created.secret, maxRetries: 0 });
  const msg = await claude.messages.create({ model: "claude-sonnet-4-6", max_tokens: 50, messages: [{ role: "user", content: "Hello from PostgreSQL" }] });
  t.equal(msg.type, "message");
  t.ok(
    msg.content.some((b) => b.type === "text" && b.text.length > 0),
    "the local engine answered",
  );

  const ib = client(server, created.secret);
  const task = await ib.run("/submit/imagine", { prompt: "a lighthouse on a cliff" });
  t.equal(task.status, "SUCCESS");
  const image = await fetch(task.imageUrl);
  t.equal(image.status, 200, "the image is served");
  t.match(image.headers.get("content-type"), /^image\//);
  const row = await server.deps.storage.tasks.get(task.id);
  t.match(row, { status: "SUCCESS", ownerKeyId: created.key!.id }, "the task is in PostgreSQL");

  const usage = await server.deps.storage.usage.query({ keyId: created.key!.id });
  t.ok(usage.totals.requests >= 2, "usage of the chat and the task is recorded");
  t.ok(
    usage.rows.some((r) => r.format === "messages"),
    "the chat's usage row",
  );

  const again = await start();
  t.teardown(() => again.close());
  t.not(again.dataDir, server.dataDir);
  const fetched = await client(again, created.secret).get(`/task/${task.id}/fetch`);
  t.equal(fetched.status, 200, "another instance authenticates the key...");
  t.equal(fetched.body.status, "SUCCESS", "...and fetches the task");
  const elsewhere = await fetch(task.imageUrl.replace(server.baseUrl, again.baseUrl));
  t.equal(elsewhere.status, 200, "the image URL works on the other instance too");
  t.same(Buffer.from(await elsewhere.arrayBuffer()), Buffer.from(await (await fetch(task.imageUrl)).arrayBuffer()));

  // Admin changes made on one instance reach the other (stored, re-read every few seconds).
  const otherAdmin = createClient(AdminService, createConnectTransport({ baseUrl: again.baseUrl, httpVersion: "1.1" }));
  const adminIb = client(server, ADMIN_KEY);
  t.match(await adminIb.post("/account/local/update", { concurrency: 7, queueSize: 33 }), { status: 200, body: { concurrency: 7, queueSize: 33 } });
  const seen = async () => (await client(again, ADMIN_KEY).get("/account/local/fetch")).body as { concurrency: number; queueSize: number };
  let there = await seen();
  for (let i = 0; i < 100 && there.concurrency !== 7; i++) {
    await new Promise((r) => setTimeout(r, 50));
    there = await seen();
  }
  t.match(there, { concurrency: 7, queueSize: 33 }, "an account edited on one instance is edited on the other");
  t.ok((await otherAdmin.listKeys({}, bearer(ADMIN_KEY))).keys.some((k) => k.id === created.key!.id));
});
