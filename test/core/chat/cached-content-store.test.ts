// The SQLite cached-content store and the helpers that expand a cache into an input.
import t from "tap";
import { create, toBinary } from "@bufbuild/protobuf";
import { CachedContentSchema, ModalityTokensSchema, Modality, StreamGenerateResponseSchema, UsageSchema } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { openSqliteStorage } from "../../../src/storage/sqlite/sqlite-storage.js";
import { cachedContentId, moveEventToCache, moveToCache } from "../../../src/core/chat/cached-context.js";
import { newCachedContentId } from "../../../src/core/chat/cached-content-service.js";
import type { CachedContentRecord } from "../../../src/storage/types.js";
import { tempDir } from "../../helpers/app.js";

const rec = (id: string, owner: string, expireTime: number): CachedContentRecord => ({
  id,
  ownerKeyId: owner,
  model: "m",
  displayName: "",
  content: toBinary(CachedContentSchema, create(CachedContentSchema, { displayName: "x" })),
  totalTokens: 7,
  createTime: 1,
  updateTime: 1,
  expireTime,
});

t.test("sqlite store: list in id order, skip expired, page after a cursor, purge", async (t) => {
  const s = openSqliteStorage(tempDir());
  t.teardown(() => s.close());
  t.ok((await s.migrations()).includes(2), "migration 2 (cached contents) is applied");
  const st = s.cachedContents;
  await st.insert(rec("b", "k1", 100));
  await st.insert(rec("a", "k1", 100));
  await st.insert(rec("c", "k1", 10));
  await st.insert(rec("d", "k2", 100));
  t.same(
    (await st.list("k1", 50)).map((r) => r.id),
    ["a", "b"],
    "expired c is not listed, k2's d is not k1's",
  );
  t.same(
    (await st.list("k1", 5)).map((r) => r.id),
    ["a", "b", "c"],
  );
  t.same(
    (await st.list("k1", 5, { after: "a", limit: 1 })).map((r) => r.id),
    ["b"],
  );
  const got = await st.get("a");
  t.equal(got?.totalTokens, 7);
  t.ok(got?.content instanceof Uint8Array);
  t.same((await st.update("a", { expireTime: 500, updateTime: 2 }))?.expireTime, 500);
  t.equal(await st.update("zz", { expireTime: 1, updateTime: 1 }), undefined);
  t.equal(await st.deleteExpired(50, 10), 1, "c is purged");
  t.equal(await st.get("c"), undefined);
  t.equal(await st.delete("b"), true);
  t.equal(await st.delete("b"), false);
});

t.test("ids sort by creation time and make valid names", async (t) => {
  const a = newCachedContentId(1000);
  const b = newCachedContentId(2000);
  t.ok(a < b);
  t.equal(cachedContentId(`cachedContents/${a}`), a);
  t.equal(cachedContentId("cachedContents/"), undefined);
  t.equal(cachedContentId("models/x"), undefined);
});

t.test("moveToCache moves prompt tokens to cache reads", async (t) => {
  const u = create(UsageSchema, {
    inputTokens: 30n,
    outputTokens: 5n,
    inputDetails: [create(ModalityTokensSchema, { modality: Modality.TEXT, tokenCount: 30n })],
  });
  const m = moveToCache(u, 20n)!;
  t.equal(m.inputTokens, 10n);
  t.equal(m.cacheReadTokens, 20n);
  t.equal(m.inputDetails[0]!.tokenCount, 10n);
  t.equal(m.cacheDetails[0]!.tokenCount, 20n);
  t.equal(u.inputTokens, 30n, "the original is untouched");
  t.equal(moveToCache(u, 0n), u);
  t.equal(moveToCache(undefined, 5n), undefined);
  t.equal(moveToCache(u, 99n)!.inputTokens, 0n, "never negative");
  const e = moveEventToCache(create(StreamGenerateResponseSchema, { event: { case: "start", value: { id: "x", usage: u } } }), 20n);
  t.equal((e.event.value as { usage: { cacheReadTokens: bigint } }).usage.cacheReadTokens, 20n);
});
