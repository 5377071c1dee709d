// GET /v1/models and /v1/models/{id} in the Anthropic shape (picked by the
// anthropic-version header the SDKs send), with limit/after_id/before_id paging.
import t from "tap";
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Capability, ModelSchema } from "../../../gen/omnigate/model/v1/model_pb.js";
import { LOCAL_LISTED_CHAT_MODELS } from "../../../src/server/deps.js";
import { pageModels, toModelInfo, UnknownCursorError } from "../../../src/facades/messages/models.js";
import { ADMIN_KEY, startServer, type TestServer } from "../../helpers/app.js";
import { SDKS } from "./sdks.js";

let server: TestServer;
t.before(async () => {
  server = await startServer();
});
t.teardown(() => server.close());

t.test("toModelInfo and paging (pure)", async (t) => {
  const m = create(ModelSchema, {
    id: "claude-x",
    displayName: "Claude X",
    createTime: timestampFromMs(Date.UTC(2025, 1, 19)),
    capabilities: [Capability.CHAT],
    inputTokenLimit: 200000,
    outputTokenLimit: 8192,
  });
  t.same(toModelInfo(m), { type: "model", id: "claude-x", display_name: "Claude X", created_at: "2025-02-19T00:00:00Z", max_input_tokens: 200000, max_tokens: 8192 });
  const all = ["a", "b", "c", "d", "e"].map((id) => ({ type: "model" as const, id, display_name: id, created_at: "2025-01-01T00:00:00Z" }));
  const ids = (p: { data: { id: string }[] }) => p.data.map((x) => x.id);
  const first = pageModels(all, { limit: 2 });
  t.same([ids(first), first.has_more, first.first_id, first.last_id], [["a", "b"], true, "a", "b"]);
  const second = pageModels(all, { limit: 2, after_id: "b" });
  t.same([ids(second), second.has_more], [["c", "d"], true]);
  const last = pageModels(all, { limit: 2, after_id: "d" });
  t.same([ids(last), last.has_more], [["e"], false]);
  const back = pageModels(all, { limit: 2, before_id: "d" });
  t.same([ids(back), back.has_more], [["b", "c"], true]);
  const empty = pageModels([], {});
  t.same(empty, { data: [], has_more: false, first_id: null, last_id: null });
  t.throws(() => pageModels(all, { after_id: "zz" }), { name: "UnknownCursorError", field: "after_id", message: "after_id: no model with id zz" });
  t.throws(() => pageModels(all, { before_id: "zz" }), new UnknownCursorError("before_id", "zz"));
});

for (const sdk of SDKS) {
  t.test(sdk.name, async (t) => {
    const client = sdk.client(server.baseUrl, ADMIN_KEY);

    t.test("models.list() pages through every chat model", async (t) => {
      const seen: string[] = [];
      for await (const m of client.models.list({ limit: 2 })) {
        t.equal(m.type, "model");
        t.match(m.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
        t.type(m.display_name, "string");
        seen.push(m.id);
      }
      t.same(seen, LOCAL_LISTED_CHAT_MODELS, "auto-paging with after_id visits each model once, in order");
      const page = await client.models.list();
      t.equal(page.data.length, LOCAL_LISTED_CHAT_MODELS.length);
      t.equal(page.has_more, false);
      t.equal(page.first_id, LOCAL_LISTED_CHAT_MODELS[0]);
      t.equal(page.last_id, LOCAL_LISTED_CHAT_MODELS.at(-1));
    });

    t.test("models.retrieve()", async (t) => {
      const m = await client.models.retrieve("claude-sonnet-4-6");
      t.equal(m.id, "claude-sonnet-4-6");
      t.equal(m.display_name, "Claude Sonnet 4.6");
      t.equal(m.type, "model");
    });

    t.test("bad paging input", async (t) => {
      const err = await client.models.list({ after_id: "no-such-model" }).then(
        () => undefined,
        (e: unknown) => e,
      );
      t.ok(err instanceof sdk.errors.BadRequestError);
      const limit = await client.models.list({ limit: 0 }).then(
        () => undefined,
        (e: unknown) => e as { error: { error: { message: string } } },
      );
      t.ok(limit instanceof sdk.errors.BadRequestError);
      t.equal(limit?.error.error.message, "limit: Input should be greater than or equal to 1");
    });

    t.test("wrong key", async (t) => {
      const err = await sdk
        .client(server.baseUrl, "sk-wrong")
        .models.list()
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      t.ok(err instanceof sdk.errors.AuthenticationError);
    });
  });
}

t.test("missing key -> 401 in the Anthropic shape", async (t) => {
  const res = await fetch(server.baseUrl + "/v1/models", { headers: { "anthropic-version": "2023-06-01" } });
  t.equal(res.status, 401);
  const body = (await res.json()) as { type: string; error: { type: string }; request_id: string };
  t.equal(body.type, "error");
  t.equal(body.error.type, "authentication_error");
  t.equal(body.request_id, res.headers.get("request-id"));
});
