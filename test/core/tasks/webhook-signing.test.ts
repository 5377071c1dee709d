// Standard Webhooks signatures, checked against an independent computation of the spec's formula.
import t from "tap";
import { createHmac } from "node:crypto";
import { signWebhook, verifyWebhook, webhookHeaders, webhookKey } from "../../../src/core/tasks/webhook-signing.js";

t.test("v1 signature = base64 HMAC-SHA256 of id.timestamp.body", async (t) => {
  const body = '{"id":"1","status":"SUCCESS"}';
  const expected = createHmac("sha256", Buffer.from("plain-secret")).update(`msg_1.1700000000.${body}`).digest("base64");
  t.equal(signWebhook("plain-secret", "msg_1", 1700000000, body), `v1,${expected}`);
});

t.test("whsec_ secrets are base64-decoded, as the standard's libraries do", async (t) => {
  const raw = Buffer.from("0123456789abcdef0123456789abcdef");
  const secret = "whsec_" + raw.toString("base64");
  t.same(webhookKey(secret), raw);
  const expected = createHmac("sha256", raw).update("msg_2.5.{}").digest("base64");
  t.equal(signWebhook(secret, "msg_2", 5, "{}"), `v1,${expected}`);
});

t.test("headers carry id and timestamp; the signature only with a secret", async (t) => {
  t.same(webhookHeaders("", "msg_3", 10, "x"), { "webhook-id": "msg_3", "webhook-timestamp": "10" });
  const h = webhookHeaders("s", "msg_3", 10, "x");
  t.match(h["webhook-signature"], /^v1,[A-Za-z0-9+/]+=*$/);
});

t.test("verify accepts the right signature and rejects tampering, old timestamps and other secrets", async (t) => {
  const h = webhookHeaders("s3cret", "msg_4", 1000, "body") as unknown as Record<string, string>;
  t.ok(verifyWebhook("s3cret", h, "body", 1000));
  t.notOk(verifyWebhook("s3cret", h, "body!", 1000), "body changed");
  t.notOk(verifyWebhook("other", h, "body", 1000), "other secret");
  t.notOk(verifyWebhook("s3cret", h, "body", 1000 + 301), "too old");
  t.ok(verifyWebhook("s3cret", { ...h, "webhook-signature": `v1,AAAA ${h["webhook-signature"]}` }, "body", 1000), "one of several signatures");
  t.notOk(verifyWebhook("s3cret", { ...h, "webhook-id": "msg_5" }, "body", 1000), "id changed");
});
