// Two instances on one PostgreSQL schema and one Redis: a key revoked on one
// stops working on the other at once, not after the authentication cache's
// 5 s lifetime.
import t from "tap";
import { randomUUID } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { AdminService } from "../../../gen/omnigate/admin/v1/admin_pb.js";
import { ADMIN_KEY, startServer } from "../../helpers/app.js";
import { pgSchema } from "../../helpers/pg.js";
import { redisSignal } from "../../../src/core/auth/redis-signal.js";

const REDIS = "redis://127.0.0.1:6379";

t.test("the signal reaches other instances only", async (t) => {
  const prefix = `og-signal-${randomUUID()}:`;
  const a = redisSignal({ url: REDIS, prefix, name: "x" });
  const b = redisSignal({ url: REDIS, prefix, name: "x" });
  const other = redisSignal({ url: REDIS, prefix, name: "y" });
  await Promise.all([a.ready, b.ready, other.ready]);
  t.teardown(() => Promise.all([a.close(), b.close(), other.close()]));
  let atA = 0;
  let atB = 0;
  let atOther = 0;
  a.on(() => atA++);
  b.on(() => atB++);
  other.on(() => atOther++);
  a.send();
  for (let i = 0; i < 100 && atB === 0; i++) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 50));
  t.same([atA, atB, atOther], [0, 1, 0]);
});

t.test("a key revoked on one instance is refused by the other at once", async (t) => {
  const { url, schema } = await pgSchema(t);
  const config = { databaseUrl: url, databaseSchema: schema, databasePoolSize: 3, redisUrl: REDIS, redisPrefix: `og-revoke-${randomUUID()}:` } as never;
  const one = await startServer({ config });
  t.teardown(() => one.close());
  const two = await startServer({ config });
  t.teardown(() => two.close());
  const bearer = (k: string) => ({ headers: { authorization: `Bearer ${k}` } });
  const adminOne = createClient(AdminService, createConnectTransport({ baseUrl: one.baseUrl, httpVersion: "1.1" }));
  const created = await adminOne.createKey({ key: { name: "short-lived" } }, bearer(ADMIN_KEY));
  const models = (base: string) => fetch(`${base}/v1/models`, { headers: { "x-api-key": created.secret, "anthropic-version": "2023-06-01" } }).then((r) => r.status);
  t.equal(await models(two.baseUrl), 200, "the other instance knows (and now caches) the key");
  await adminOne.revokeKey({ id: created.key!.id }, bearer(ADMIN_KEY));
  const started = Date.now();
  let status = await models(two.baseUrl);
  while (status === 200 && Date.now() - started < 1500) {
    await new Promise((r) => setTimeout(r, 20));
    status = await models(two.baseUrl);
  }
  t.equal(status, 401, `refused on the other instance within ${Date.now() - started} ms (its cache lives 5 s)`);
});
