// The StoredResponseService behind the real call pipeline, on SQLite and on
// PostgreSQL: save, get, delete, input-item pages in both orders, context
// across three responses, two keys that never see each other's responses,
// expiry and the sweeper, and the size cap.
import t, { type Test } from "tap";
import { rmSync } from "node:fs";
import type { JsonObject } from "@bufbuild/protobuf";
import { timestampFromMs, timestampMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { ListInputItemsRequest_Order as Order, StoredResponseService } from "../../../gen/omnigate/response/v1/response_pb.js";
import { errorDetail } from "../../../src/core/errors.js";
import { joinJsonArrays, pageOf, withItemIds } from "../../../src/core/response/items.js";
import { storedResponseService } from "../../../src/core/response/stored-response-service.js";
import { responseSweeper } from "../../../src/core/response/sweeper.js";
import { openPostgresStorage } from "../../../src/storage/postgres/pg-storage.js";
import { openSqliteStorage } from "../../../src/storage/sqlite/sqlite-storage.js";
import type { Storage } from "../../../src/storage/types.js";
import { tempDir } from "../../helpers/app.js";
import { pgSchema } from "../../helpers/pg.js";
import { serve, TEST_PRINCIPAL } from "../call/harness.js";

const T0 = 1_700_000_000_000;
const DAY = 86_400_000;

type Opened = { storage: Storage };
type Open = (t: Test) => Promise<Opened>;

const openSqlite: Open = async (t) => {
  const dir = tempDir("omnigate-responses-");
  const storage = openSqliteStorage(dir);
  t.teardown(async () => {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { storage };
};

const openPostgres: Open = async (t) => {
  const holder: { s?: Storage } = {};
  // Registered first: the pool closes before the schema is dropped.
  t.teardown(() => holder.s?.close());
  const { url, schema } = await pgSchema(t);
  holder.s = await openPostgresStorage({ url, schema, poolSize: 2 });
  return { storage: holder.s };
};

/** The service on `storage` for two keys, with a clock the test moves. */
function setup(storage: Storage, over: { maxBytes?: number } = {}) {
  const clock = { now: T0 };
  const now = () => clock.now;
  const impl = storedResponseService({ store: storage.responses, retentionMs: 30 * DAY, maxBytes: over.maxBytes ?? 1 << 20, now });
  const a = serve(StoredResponseService, impl, { now, principal: { ...TEST_PRINCIPAL, keyId: "key_a" } });
  const b = serve(StoredResponseService, impl, { now, principal: { ...TEST_PRINCIPAL, keyId: "key_b", admin: true } });
  return { clock, a, b };
}

const rejection = async (p: Promise<unknown>): Promise<ConnectError> => {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof ConnectError)) throw new Error(`expected a ConnectError, got ${String(e)}`);
  return e;
};

const user = (text: string, id?: string): JsonObject => ({ type: "message", role: "user", content: [{ type: "input_text", text }], ...(id ? { id } : {}) });
const answer = (text: string, id: string): JsonObject => ({ id, type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });
const responseObject = (id: string, output: JsonObject[], extra: JsonObject = {}): JsonObject => ({
  id,
  object: "response",
  created_at: T0 / 1000,
  status: "completed",
  model: "gpt-x",
  output,
  ...extra,
});

function suite(t: Test, open: Open) {
  t.test("save, get, delete", async (t) => {
    const { storage } = await open(t);
    const { a } = setup(storage);
    const out = [answer("Hi!", "msg_out1")];
    const body = responseObject("resp_1", out, { usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 }, metadata: {}, error: null, nested: { n: [1, 2.5, "x", null, true] } });
    const saved = await a.saveResponse({ id: "resp_1", model: "gpt-x", status: "completed", response: body, input: [user("Hello")], output: out, createTime: timestampFromMs(T0 - 5000) });
    t.equal(saved.response?.id, "resp_1");
    t.equal(timestampMs(saved.response!.createTime!), T0 - 5000, "the create time given");
    t.equal(timestampMs(saved.response!.expireTime!), T0 + 30 * DAY, "kept for the retention from the save");

    const got = (await a.getResponse({ id: "resp_1" })).response!;
    t.same(got.response, body, "the Response object round-trips as the client got it");
    t.same({ id: got.id, status: got.status, model: got.model, previous: got.previousResponseId }, { id: "resp_1", status: "completed", model: "gpt-x", previous: "" });

    // Saving again under the same id replaces it (a background response when it finishes).
    await a.saveResponse({ id: "resp_1", model: "gpt-x", status: "cancelled", response: { ...body, status: "cancelled" }, input: [user("Hello")], output: [] });
    t.equal((await a.getResponse({ id: "resp_1" })).response?.status, "cancelled", "replaced");

    t.same(await a.deleteResponse({ id: "resp_1" }), { $typeName: "omnigate.response.v1.DeleteResponseResponse", id: "resp_1" });
    const gone = await rejection(a.getResponse({ id: "resp_1" }));
    t.equal(gone.code, Code.NotFound);
    t.equal(gone.rawMessage, "Response with id 'resp_1' not found.");
    t.equal((await rejection(a.deleteResponse({ id: "resp_1" }))).code, Code.NotFound, "deleting twice: NotFound");
    t.equal((await rejection(a.getResponse({ id: "file_1" }))).code, Code.NotFound, "not a response id: NotFound");
    t.equal((await rejection(a.getResponse({ id: "" }))).code, Code.InvalidArgument, "no id");
    t.equal((await rejection(a.deleteResponse({ id: "" }))).code, Code.InvalidArgument);
  });

  t.test("input items: ids, pages in both orders", async (t) => {
    const { storage } = await open(t);
    const { a } = setup(storage);
    const input: JsonObject[] = [
      user("one", "msg_given"),
      { role: "user", content: "bare" },
      { type: "function_call_output", call_id: "call_1", output: "42" },
      { type: "function_call", id: "fc_7", call_id: "call_7", name: "f", arguments: "{}" },
      user("five"),
    ];
    await a.saveResponse({ id: "resp_items", model: "m", status: "completed", response: { id: "resp_items" }, input, output: [] });
    const all = (await a.listInputItems({ id: "resp_items", order: Order.ASC })).items;
    const ids = all.map((i) => i.id as string);
    t.equal(ids[0], "msg_given", "an item's own id is kept");
    t.match(ids[1], /^msg_[0-9a-f]{48}$/, "a bare message gets msg_");
    t.match(ids[2], /^item_[0-9a-f]{48}$/, "another item gets item_");
    t.equal(ids[3], "fc_7");
    t.match(ids[4], /^msg_/);
    t.same(
      all.map(({ id: _, ...rest }) => rest),
      input.map(({ id: _, ...rest }) => rest),
      "the items are otherwise as given",
    );

    const desc = await a.listInputItems({ id: "resp_items" });
    t.same(
      desc.items.map((i) => i.id),
      [...ids].reverse(),
      "desc by default: the last item first",
    );
    t.same({ first: desc.firstId, last: desc.lastId, more: desc.hasMore }, { first: ids[4], last: ids[0], more: false });

    const p1 = await a.listInputItems({ id: "resp_items", limit: 2, order: Order.ASC });
    t.same(
      p1.items.map((i) => i.id),
      ids.slice(0, 2),
    );
    t.same({ first: p1.firstId, last: p1.lastId, more: p1.hasMore }, { first: ids[0], last: ids[1], more: true });
    const p2 = await a.listInputItems({ id: "resp_items", limit: 2, order: Order.ASC, after: p1.lastId });
    t.same(
      p2.items.map((i) => i.id),
      ids.slice(2, 4),
    );
    t.equal(p2.hasMore, true);
    const p3 = await a.listInputItems({ id: "resp_items", limit: 2, order: Order.ASC, after: p2.lastId });
    t.same(
      p3.items.map((i) => i.id),
      ids.slice(4),
    );
    t.equal(p3.hasMore, false, "the last page");

    const d1 = await a.listInputItems({ id: "resp_items", limit: 3, order: Order.DESC });
    t.same(
      d1.items.map((i) => i.id),
      [ids[4], ids[3], ids[2]],
    );
    t.equal(d1.hasMore, true);
    const d2 = await a.listInputItems({ id: "resp_items", limit: 3, order: Order.DESC, after: d1.lastId });
    t.same(
      d2.items.map((i) => i.id),
      [ids[1], ids[0]],
    );
    t.equal(d2.hasMore, false);
    const end = await a.listInputItems({ id: "resp_items", order: Order.DESC, after: ids[0] });
    t.same({ items: end.items, first: end.firstId, last: end.lastId, more: end.hasMore }, { items: [], first: "", last: "", more: false }, "after the last item: an empty page");

    const bad = await rejection(a.listInputItems({ id: "resp_items", after: "msg_nope" }));
    t.equal(bad.code, Code.InvalidArgument);
    t.equal(errorDetail(bad)?.field, "after");
    for (const limit of [-1, 101]) t.equal((await rejection(a.listInputItems({ id: "resp_items", limit }))).code, Code.InvalidArgument, `limit ${limit}`);
    t.equal((await a.listInputItems({ id: "resp_items", limit: 100 })).items.length, 5);
    t.equal((await rejection(a.listInputItems({ id: "resp_nope" }))).code, Code.NotFound);
  });

  t.test("context accumulates across three responses", async (t) => {
    const { storage } = await open(t);
    const { a } = setup(storage);
    const reasoning: JsonObject = { id: "rs_2", type: "reasoning", summary: [], encrypted_content: "og1.sealed" };
    await a.saveResponse({ id: "resp_c1", model: "m1", status: "completed", response: responseObject("resp_c1", [answer("A1", "msg_a1")]), input: [user("Q1")], output: [answer("A1", "msg_a1")] });
    const c1 = await a.getContext({ id: "resp_c1" });
    t.equal(c1.model, "m1");
    t.same(
      c1.items.map((i) => [i.role, (i.content as JsonObject[])[0]!.text]),
      [
        ["user", "Q1"],
        ["assistant", "A1"],
      ],
    );
    t.match(c1.items[0]!.id, /^msg_/, "input items in the context carry their ids");

    // The second answer's context holds more than its Response object shows (sealed reasoning).
    await a.saveResponse({
      id: "resp_c2",
      model: "m2",
      status: "completed",
      previousResponseId: "resp_c1",
      response: responseObject("resp_c2", [answer("A2", "msg_a2")]),
      input: [user("Q2")],
      output: [reasoning, answer("A2", "msg_a2")],
    });
    await a.saveResponse({
      id: "resp_c3",
      model: "m3",
      status: "completed",
      previousResponseId: "resp_c2",
      response: responseObject("resp_c3", []),
      input: [{ type: "function_call_output", call_id: "c", output: "x" }, user("Q3")],
      output: [answer("A3", "msg_a3")],
    });
    const c3 = await a.getContext({ id: "resp_c3" });
    t.same(
      c3.items.map((i) => i.id ?? "?").map((id) => String(id).replace(/^(msg|item)_[0-9a-f]{48}$/, "$1_new")),
      ["msg_new", "msg_a1", "msg_new", "rs_2", "msg_a2", "item_new", "msg_new", "msg_a3"],
      "previous context, then this response's input, then its output",
    );
    t.same(c3.items[3], reasoning, "output items as saved");
    t.equal(c3.model, "m3");
    t.equal((await a.getResponse({ id: "resp_c3" })).response?.previousResponseId, "resp_c2");
    t.same(
      (await a.listInputItems({ id: "resp_c3", order: Order.ASC })).items.map((i) => i.type),
      ["function_call_output", "message"],
      "its input items are only its own",
    );

    // A response continued from one that is gone cannot be saved.
    await a.deleteResponse({ id: "resp_c2" });
    const e = await rejection(a.saveResponse({ id: "resp_c4", model: "m", status: "completed", previousResponseId: "resp_c2", response: {}, input: [], output: [] }));
    t.equal(e.code, Code.NotFound);
    t.same(
      { reason: errorDetail(e)?.reason, field: errorDetail(e)?.field, message: e.rawMessage },
      { reason: "previous_response_not_found", field: "previous_response_id", message: "Previous response with id 'resp_c2' not found." },
    );
    const ctx = await rejection(a.getContext({ id: "resp_c2" }));
    t.same({ code: ctx.code, reason: errorDetail(ctx)?.reason }, { code: Code.NotFound, reason: "previous_response_not_found" });
    t.same((await a.getContext({ id: "resp_c3" })).items.length, 8, "a follow-up's context does not depend on the responses before it");
  });

  t.test("two keys never see each other's responses", async (t) => {
    const { storage } = await open(t);
    const { a, b } = setup(storage);
    await a.saveResponse({ id: "resp_mine", model: "m", status: "completed", response: responseObject("resp_mine", []), input: [user("secret")], output: [] });
    for (const [name, call] of [
      ["get", () => b.getResponse({ id: "resp_mine" })],
      ["delete", () => b.deleteResponse({ id: "resp_mine" })],
      ["input items", () => b.listInputItems({ id: "resp_mine" })],
    ] as const) {
      const e = await rejection(call());
      t.same({ code: e.code, message: e.rawMessage }, { code: Code.NotFound, message: "Response with id 'resp_mine' not found." }, `${name}: NotFound, even for an admin key`);
    }
    t.equal((await rejection(b.getContext({ id: "resp_mine" }))).code, Code.NotFound, "context: NotFound");
    const cont = await rejection(b.saveResponse({ id: "resp_theirs", model: "m", status: "completed", previousResponseId: "resp_mine", response: {}, input: [], output: [] }));
    t.equal(errorDetail(cont)?.reason, "previous_response_not_found", "another key's response cannot be continued");
    const clash = await rejection(b.saveResponse({ id: "resp_mine", model: "m", status: "completed", response: { hijacked: true }, input: [], output: [] }));
    t.equal(clash.code, Code.AlreadyExists, "another key's id is never overwritten");
    t.same((await a.getResponse({ id: "resp_mine" })).response?.response, responseObject("resp_mine", []), "the owner's record is untouched");
    t.equal((await a.listInputItems({ id: "resp_mine" })).items.length, 1);
  });

  t.test("expiry: hidden at the retention, then swept", async (t) => {
    const { storage } = await open(t);
    const { a, clock } = setup(storage);
    await a.saveResponse({ id: "resp_old", model: "m", status: "completed", response: {}, input: [user("x")], output: [] });
    clock.now = T0 + 10 * DAY;
    await a.saveResponse({ id: "resp_new", model: "m", status: "completed", response: {}, input: [], output: [] });
    clock.now = T0 + 30 * DAY - 1;
    t.ok(await a.getResponse({ id: "resp_old" }), "kept until the retention ends");
    clock.now = T0 + 30 * DAY;
    t.equal((await rejection(a.getResponse({ id: "resp_old" }))).code, Code.NotFound, "expired: NotFound");
    t.equal((await rejection(a.listInputItems({ id: "resp_old" }))).code, Code.NotFound);
    t.equal((await rejection(a.getContext({ id: "resp_old" }))).code, Code.NotFound);
    t.equal((await rejection(a.deleteResponse({ id: "resp_old" }))).code, Code.NotFound);
    t.equal((await rejection(a.saveResponse({ id: "resp_next", model: "m", status: "completed", previousResponseId: "resp_old", response: {}, input: [], output: [] }))).code, Code.NotFound);

    const sweeper = responseSweeper(storage.responses, { intervalMs: 0, now: () => clock.now, batch: 1 });
    t.equal(await sweeper.runOnce(), 1, "the sweep deletes the expired one");
    t.equal(await sweeper.runOnce(), 0);
    t.ok(await a.getResponse({ id: "resp_new" }), "the other is kept");
    clock.now = T0 + 40 * DAY;
    t.equal(await sweeper.runOnce(), 1);
    sweeper.stop();
  });

  t.test("sizes are bounded", async (t) => {
    const { storage } = await open(t);
    const { a } = setup(storage, { maxBytes: 2000 });
    const big = "é".repeat(700); // 1,400 bytes as UTF-8, 700 characters
    const e = await rejection(a.saveResponse({ id: "resp_big", model: "m", status: "completed", response: { id: "resp_big", text: big + big }, input: [], output: [] }));
    t.same(
      { code: e.code, reason: errorDetail(e)?.reason, field: errorDetail(e)?.field },
      { code: Code.InvalidArgument, reason: "stored_response_too_large", field: "response" },
      "bytes are counted, not characters",
    );
    t.equal((await rejection(a.saveResponse({ id: "resp_big", model: "m", status: "completed", response: {}, input: [user(big + big)], output: [] }))).code, Code.InvalidArgument, "input");
    // Each save fits, but the conversation outgrows the cap.
    await a.saveResponse({ id: "resp_s1", model: "m", status: "completed", response: {}, input: [user(big)], output: [] });
    const grown = await rejection(a.saveResponse({ id: "resp_s2", model: "m", status: "completed", previousResponseId: "resp_s1", response: {}, input: [user(big)], output: [] }));
    t.same({ code: grown.code, reason: errorDetail(grown)?.reason }, { code: Code.InvalidArgument, reason: "stored_response_too_large" }, "the context");
    t.equal((await rejection(a.getResponse({ id: "resp_big" }))).code, Code.NotFound, "nothing refused was stored");
  });

  t.test("save checks its request", async (t) => {
    const { storage } = await open(t);
    const { a } = setup(storage);
    const save = (over: Record<string, unknown>) => rejection(a.saveResponse({ id: "resp_ok", model: "m", status: "completed", response: {}, input: [], output: [], ...over }));
    for (const id of ["", "resp_", "msg_1", "resp_a b", "resp_" + "x".repeat(124)]) {
      const e = await save({ id });
      t.same({ code: e.code, field: errorDetail(e)?.field }, { code: Code.InvalidArgument, field: "id" }, `id ${JSON.stringify(id.slice(0, 12))}`);
    }
    t.equal(errorDetail(await save({ response: { id: "resp_other" } }))?.field, "response.id", "the Response object's id must match");
    t.equal(errorDetail(await save({ previousResponseId: "resp_ok" }))?.field, "previous_response_id", "no response continues itself");
    t.equal(errorDetail(await save({ previousResponseId: "not-an-id" }))?.reason, "previous_response_not_found");
    const ok = await a.saveResponse({ id: "resp_" + "x".repeat(123), model: "m", status: "completed", response: {}, input: [], output: [] });
    t.equal(timestampMs(ok.response!.createTime!), T0, "no create time: now");
  });
}

t.test("sqlite", async (t) => suite(t, openSqlite));
t.test("postgres", async (t) => suite(t, openPostgres));

t.test("items helpers (pure)", async (t) => {
  t.equal(joinJsonArrays(["[]", "[]"]), "[]");
  t.same(JSON.parse(joinJsonArrays(['[1,{"a":[2]}]', "[]", '["x"]', "[null]"])), [1, { a: [2] }, "x", null]);
  const items = withItemIds([{ id: "" }, { id: 5 } as JsonObject, { type: "message", role: "user" }]);
  t.match(items, [{ id: /^item_/ }, { id: /^item_/ }, { id: /^msg_/ }], "an empty or non-string id is replaced");
  t.equal(pageOf([{ id: "a" }], { after: "b", limit: 1, desc: false }), undefined);
  t.same(pageOf([{ id: "a" }, { id: "b" }], { after: "", limit: 1, desc: true }), { items: [{ id: "b" }], hasMore: true });
});
