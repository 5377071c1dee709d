import t from "tap";
import { authenticator } from "../../../src/core/auth/authenticator.js";
import { BOOTSTRAP_KEY_ID, ensureKeys } from "../../../src/core/auth/bootstrap.js";
import { bearerToken } from "../../../src/core/auth/bearer.js";
import { hashSecret, newSecret, secretPrefix } from "../../../src/core/auth/secrets.js";
import { openSqliteStorage } from "../../../src/storage/sqlite/sqlite-storage.js";
import { tempDir } from "../../helpers/app.js";

t.test("secrets are random, prefixed and stored only as a hash", async (t) => {
  const a = newSecret();
  const b = newSecret();
  t.not(a, b);
  t.match(a, /^sk-og-[A-Za-z0-9_-]{43}$/);
  t.equal(hashSecret(a).length, 64);
  t.equal(secretPrefix(a), a.slice(0, 10));
});

t.test("bearer parsing", async (t) => {
  t.equal(bearerToken("Bearer abc"), "abc");
  t.equal(bearerToken("bearer  abc "), "abc");
  t.equal(bearerToken("Basic abc"), undefined);
  t.equal(bearerToken(null), undefined);
});

t.test("first start creates one admin key; later starts none", async (t) => {
  const s = openSqliteStorage(tempDir());
  t.teardown(() => s.close());
  const first = await ensureKeys(s.keys, {});
  t.ok(first.generatedSecret);
  const stored = await s.keys.findByHash(hashSecret(first.generatedSecret!));
  t.equal(stored?.admin, true);
  t.notOk(JSON.stringify(await s.keys.list()).includes(first.generatedSecret!), "the secret is not stored");
  t.same(await ensureKeys(s.keys, {}), {}, "nothing generated when keys exist");
});

t.test("the bootstrap key is idempotent and repaired if revoked", async (t) => {
  const s = openSqliteStorage(tempDir());
  t.teardown(() => s.close());
  await ensureKeys(s.keys, { bootstrapKey: "sk-boot-12345678", now: 1 });
  await ensureKeys(s.keys, { bootstrapKey: "sk-boot-12345678", now: 2 });
  t.equal(await s.keys.count(), 1);
  t.equal((await s.keys.get(BOOTSTRAP_KEY_ID))?.createTime, 1, "kept the original row");
  await s.keys.update(BOOTSTRAP_KEY_ID, { revokeTime: 3 });
  await ensureKeys(s.keys, { bootstrapKey: "sk-boot-12345678", now: 4 });
  t.equal((await s.keys.get(BOOTSTRAP_KEY_ID))?.revokeTime, undefined, "un-revoked");
  await ensureKeys(s.keys, { bootstrapKey: "sk-boot-other-999", now: 5 });
  const auth = authenticator(s.keys);
  t.ok(await auth.verify("sk-boot-other-999"), "a changed bootstrap key takes over");
  t.notOk(await auth.verify("sk-boot-12345678"), "the old one no longer works");
});

t.test("the authenticator rejects unknown, revoked and expired keys and caches briefly", async (t) => {
  const s = openSqliteStorage(tempDir());
  t.teardown(() => s.close());
  let now = 1000;
  const auth = authenticator(s.keys, { now: () => now, ttlMs: 100 });
  const { generatedSecret } = await ensureKeys(s.keys, { now });
  const p = await auth.verify(generatedSecret!);
  t.equal(p?.admin, true);
  t.equal(await auth.verify("sk-og-nope"), undefined);
  t.equal(await auth.verify(""), undefined);
  const id = p!.keyId;
  await s.keys.update(id, { revokeTime: now });
  t.ok(await auth.verify(generatedSecret!), "still cached within the TTL");
  now += 101;
  t.equal(await auth.verify(generatedSecret!), undefined, "revocation seen after the TTL");
  await s.keys.update(id, { revokeTime: undefined, expireTime: now + 10 });
  auth.invalidate();
  t.ok(await auth.verify(generatedSecret!));
  now += 10;
  t.equal(await auth.verify(generatedSecret!), undefined, "expired");
});

t.test("cached answers without storage only what verify has just looked up", async (t) => {
  const s = openSqliteStorage(tempDir());
  t.teardown(() => s.close());
  let now = 1000;
  const auth = authenticator(s.keys, { now: () => now, ttlMs: 100 });
  const { generatedSecret } = await ensureKeys(s.keys, { now });
  t.equal(auth.cached!(generatedSecret!), undefined, "not looked up yet: ask storage");
  t.equal(auth.cached!(""), null, "an empty key is refused outright");
  const p = await auth.verify(generatedSecret!);
  t.same(auth.cached!(generatedSecret!), p, "a fresh entry answers at once");
  t.equal(auth.cached!(generatedSecret!), auth.cached!(generatedSecret!), "the principal is made once per entry");
  await auth.verify("sk-og-unknown");
  t.equal(auth.cached!("sk-og-unknown"), null, "a refused key is remembered as refused");
  now += 101;
  t.equal(auth.cached!(generatedSecret!), undefined, "past the TTL: ask storage again");
  await auth.verify(generatedSecret!);
  auth.invalidate();
  t.equal(auth.cached!(generatedSecret!), undefined, "invalidate forgets");
  await auth.verify(generatedSecret!);
  now += 50;
  await s.keys.update(p!.keyId, { expireTime: now });
  auth.invalidate();
  await auth.verify(generatedSecret!);
  t.equal(auth.cached!(generatedSecret!), null, "an expired key is refused from the cache");
});
