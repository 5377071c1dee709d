// /v1/responses in the assembled gateway on the local engine, over HTTP: a
// stored conversation continued by previous_response_id through a tool call,
// what another key sees, reasoning sealed and replayed statelessly (and a
// tampered blob refused), a rate-limited key whose save takes no slot,
// compaction in both forms, input_tokens and cancel.
import t from "tap";
import { ADMIN_KEY, startServer, type TestServer } from "../../helpers/app.js";

let server: TestServer;
const keys: Record<string, string> = {};

async function createKey(key: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${server.baseUrl}/omnigate.admin.v1.AdminService/CreateKey`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ key: { name: "t", ...key } }),
  });
  return ((await res.json()) as { secret: string }).secret;
}

t.before(async () => {
  server = await startServer();
  keys.other = await createKey({});
  keys.single = await createKey({ limits: { concurrentRequests: 1 } });
});
t.teardown(() => server?.close());

async function call(method: string, path: string, body?: unknown, key = ADMIN_KEY) {
  const res = await fetch(`${server.baseUrl}/v1/responses${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text.startsWith("{") ? (JSON.parse(text) as any) : text };
}

const weather = { type: "function", name: "get_weather", description: "Weather of a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };

t.test("a stored conversation: a tool call, its output by previous_response_id, retrieve, input items, delete, another key", async (t) => {
  const first = await call("POST", "", { model: "gpt-5", input: "Use get_weather for Paris.", tools: [weather] });
  t.equal(first.status, 200);
  const fc = first.body.output.find((i: any) => i.type === "function_call");
  t.match(fc, { name: "get_weather", call_id: String, status: "completed" });
  t.same(JSON.parse(fc.arguments), { city: "Paris" });

  const second = await call("POST", "", {
    model: "gpt-5",
    previous_response_id: first.body.id,
    input: [{ type: "function_call_output", call_id: fc.call_id, output: "sunny, 21 C" }],
    tools: [weather],
  });
  t.equal(second.status, 200, "the stored call answers the output");
  t.match(second.body.output.at(-1).content[0].text, /sunny, 21 C/, "the engine answers the tool's result");
  t.equal(second.body.previous_response_id, first.body.id);

  const got = await call("GET", `/${second.body.id}`);
  t.same(got.body, second.body, "retrieve gives the response as it was answered");
  const items = await call("GET", `/${second.body.id}/input_items?order=asc`);
  t.match(items.body, { object: "list", data: [{ type: "function_call_output", call_id: fc.call_id }], has_more: false });

  const foreign = await call("GET", `/${first.body.id}`, undefined, keys.other);
  t.equal(foreign.status, 404, "another key does not see it");
  const foreignFollowUp = await call("POST", "", { model: "gpt-5", previous_response_id: first.body.id, input: "more" }, keys.other);
  t.equal(foreignFollowUp.status, 404);
  t.match(foreignFollowUp.body.error, { param: "previous_response_id", message: `Previous response with id '${first.body.id}' not found.` });

  const cancel = await call("POST", `/${first.body.id}/cancel`, {});
  t.equal(cancel.status, 400, "only background responses can be cancelled");
  t.equal((await call("POST", "/resp_missing/cancel", {})).status, 404);

  t.same((await call("DELETE", `/${first.body.id}`)).body, { id: first.body.id, object: "response", deleted: true });
  t.equal((await call("GET", `/${first.body.id}`)).status, 404, "deleted");
  const gone = await call("POST", "", { model: "gpt-5", previous_response_id: first.body.id, input: "more" });
  t.equal(gone.status, 404, "a deleted response cannot be continued");
});

t.test("stateless: sealed reasoning replayed with the history, a tampered blob refused", async (t) => {
  const body = { model: "gpt-5", store: false, include: ["reasoning.encrypted_content"], reasoning: { effort: "low" }, tools: [weather] };
  const first = await call("POST", "", { ...body, input: [{ role: "user", content: "Use get_weather for Rome." }] });
  t.equal(first.status, 200);
  const reasoning = first.body.output.find((i: any) => i.type === "reasoning");
  t.match(reasoning?.encrypted_content, /^og1\./, "the local engine's signed thinking, sealed");
  const fc = first.body.output.find((i: any) => i.type === "function_call");
  t.equal((await call("GET", `/${first.body.id}`)).status, 404, "store:false keeps nothing");

  const history = [{ role: "user", content: "Use get_weather for Rome." }, ...first.body.output, { type: "function_call_output", call_id: fc.call_id, output: "rain" }];
  const second = await call("POST", "", { ...body, input: history });
  t.equal(second.status, 200, "the history with its sealed reasoning is accepted");
  t.match(second.body.output.at(-1).content[0].text, /rain/);

  const tampered = history.map((i: any) => (i.type === "reasoning" ? { ...i, encrypted_content: i.encrypted_content.slice(0, -4) + "AAAA" } : i));
  const refused = await call("POST", "", { ...body, input: tampered });
  t.equal(refused.status, 400);
  t.match(refused.body.error, { code: "invalid_encrypted_content" });

  const foreign = history.map((i: any) => (i.type === "reasoning" ? { ...i, encrypted_content: "gAAAAABforeign" } : i));
  t.equal((await call("POST", "", { ...body, input: foreign })).status, 200, "OpenAI's own blob is dropped, not refused");
});

t.test("a key with one concurrent request: its streamed answer is saved without refusing itself", async (t) => {
  const streamed = await call("POST", "", { model: "gpt-5", input: "Say hi.", stream: true }, keys.single);
  t.equal(streamed.status, 200);
  const done = /event: response\.completed\ndata: (.*)\n/.exec(streamed.body as string);
  t.ok(done, "completed");
  const id = JSON.parse(done![1]!).response.id as string;
  const next = await call("POST", "", { model: "gpt-5", previous_response_id: id, input: "Again." }, keys.single);
  t.equal(next.status, 200, "the follow-up finds the saved response at once");
});

t.test("compaction: a trigger item and /compact both give one sealed compaction item, which comes back as the summary", async (t) => {
  const input = [
    { role: "user", content: "Plan a trip to Lisbon." },
    { type: "message", role: "assistant", content: [{ type: "output_text", text: "Day one: Alfama." }] },
  ];
  const triggered = await call("POST", "", { model: "gpt-5", store: false, input: [...input, { type: "compaction_trigger" }] });
  t.equal(triggered.status, 200);
  t.equal(triggered.body.output.length, 1, "exactly one output item");
  t.match(triggered.body.output[0], { type: "compaction", encrypted_content: /^og1\./ });

  const compacted = await call("POST", "/compact", { model: "gpt-5", input });
  t.equal(compacted.status, 200);
  t.match(compacted.body, { object: "response.compaction", id: /^resp_/, usage: { input_tokens: Number } });
  t.same(
    compacted.body.output.map((i: any) => i.type ?? "message"),
    ["message", "compaction"],
    "the user's messages, then the compaction item",
  );

  const resumed = await call("POST", "", { model: "gpt-5", store: false, input: [...compacted.body.output, { role: "user", content: "Continue." }] });
  t.equal(resumed.status, 200, "the compaction item is accepted back");
  const tampered = await call("POST", "", {
    model: "gpt-5",
    store: false,
    input: [
      { type: "compaction", encrypted_content: "og1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" },
      { role: "user", content: "Continue." },
    ],
  });
  t.equal(tampered.status, 400);
});

t.test("input_tokens counts what a request would send, previous response included", async (t) => {
  const short = await call("POST", "/input_tokens", { model: "gpt-5", input: "Hello there" });
  t.equal(short.status, 200);
  t.match(short.body, { object: "response.input_tokens", input_tokens: Number });
  const long = await call("POST", "/input_tokens", { model: "gpt-5", input: "Hello there, " + "and more words ".repeat(20) });
  t.ok(long.body.input_tokens > short.body.input_tokens, "more input, more tokens");
  const stored = await call("POST", "", { model: "gpt-5", input: "Remember the number 42." });
  const followUp = await call("POST", "/input_tokens", { model: "gpt-5", previous_response_id: stored.body.id, input: "Hello there" });
  t.ok(followUp.body.input_tokens > short.body.input_tokens, "the stored conversation counts");
  t.equal((await call("POST", "/input_tokens", { input: "x" })).status, 400, "model is required");
});
