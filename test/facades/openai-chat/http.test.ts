// The HTTP edge of /v1/chat/completions: the key before the body, bodies that
// are not JSON, too large or too deep, paths beside the route, headers the
// SDKs read. Every answer in OpenAI's {"error":{message,type,param,code}}.
import t from "tap";
import { gzipSync } from "node:zlib";
import { ADMIN_KEY, startServer, type TestServer } from "../../helpers/app.js";

let server: TestServer;
t.before(async () => {
  server = await startServer({ config: { bodyLimitBytes: 64 * 1024 } as never });
});
t.teardown(() => server.close());

const URL_PATH = "/v1/chat/completions";
async function call(body: string | Buffer, headers: Record<string, string> = {}, path = URL_PATH, method = "POST") {
  const res = await fetch(server.baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json", ...headers },
    ...(method === "GET" ? {} : { body }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: JSON.parse(text) as any };
}
const ok = JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] });

t.test("the key is checked before the body", async (t) => {
  const wrong = await call("{not json", { authorization: "Bearer sk-og-wrong" });
  t.equal(wrong.status, 401);
  t.same(wrong.body, {
    error: { message: "Incorrect API key provided. You can find your API key in the gateway's admin console.", type: "invalid_request_error", param: null, code: "invalid_api_key" },
  });
  const none = await call(ok, { authorization: "" });
  t.equal(none.status, 401);
  t.match(none.body.error, { message: /^You didn't provide an API key/, code: "invalid_api_key" });
  t.ok(none.headers.get("x-request-id"), "x-request-id, as OpenAI sends it");
  t.equal(none.headers.get("x-request-id"), none.headers.get("request-id"));
});

t.test("bodies that are not a JSON object", async (t) => {
  for (const [what, body, headers] of [
    ["invalid JSON", "{oops", {}],
    ["an empty body", "", {}],
    ["an array", "[1]", {}],
    ["a string", '"hi"', {}],
    ["text/plain", ok, { "content-type": "text/plain" }],
    ["no content type", ok, { "content-type": "" }],
  ] as const) {
    const r = await call(body, headers);
    t.equal(r.status, 400, what);
    t.match(r.body, { error: { message: /^We could not parse the JSON body of your request/, type: "invalid_request_error", param: null, code: null } }, what);
  }
  const deep = await call(`{"model":"m","messages":[{"role":"user","content":"x"}],"metadata":${"[".repeat(150)}${"]".repeat(150)}}`);
  t.equal(deep.status, 400);
  t.match(deep.body.error.message, /nested more than 100 levels/);
  const gz = await call(gzipSync(Buffer.from(ok)), { "content-encoding": "gzip" });
  t.equal(gz.status, 200, "a gzip body is read");
});

t.test("a body over the limit is a 413", async (t) => {
  const big = JSON.stringify({ model: "m", messages: [{ role: "user", content: "x".repeat(80 * 1024) }] });
  const r = await call(big);
  t.equal(r.status, 413);
  t.same(r.body, { error: { message: "The request body is too large.", type: "invalid_request_error", param: null, code: "request_too_large" } });
});

t.test("validation errors name the field as OpenAI does", async (t) => {
  const cases: [unknown, Record<string, unknown>][] = [
    [{ messages: [{ role: "user", content: "x" }] }, { message: "you must provide a model parameter", param: null, code: null }],
    [{ model: "m" }, { message: "Missing required parameter: 'messages'.", param: "messages", code: "missing_required_parameter" }],
    [
      { model: "m", messages: [{ role: "user", content: [{ type: "image_url", image_url: {} }] }] },
      { param: "messages[0].content[0].image_url.url", code: "missing_required_parameter" },
    ],
    [
      { model: "m", messages: [{ role: "system", content: [{ type: "image_url", image_url: { url: "https://x" } }] }] },
      { param: "messages[0].content[0].type", code: "invalid_value" },
    ],
    [
      { model: "m", messages: [{ role: "user", content: "x" }], n: 0 },
      { message: "Invalid 'n': integer below minimum value. Expected a value >= 1, but got 0 instead.", param: "n" },
    ],
    [
      { model: "m", messages: [{ role: "user", content: "x" }], top_p: 1.5 },
      { message: "Invalid 'top_p': decimal above maximum value. Expected a value <= 1, but got 1.5 instead.", param: "top_p" },
    ],
    [
      { model: "m", messages: [{ role: "user", content: "x" }], tools: [{ type: "function", function: { name: "has space" } }] },
      { param: "tools[0].function.name", code: "invalid_value" },
    ],
    [
      { model: "m", messages: [{ role: "tool", content: "x" }] },
      { message: "Missing required parameter: 'messages[0].tool_call_id'.", param: "messages[0].tool_call_id" },
    ],
    [{ model: "m", messages: [{ role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "f" } }] }] }, { param: "messages[0].tool_calls[0].function.arguments" }],
    [{ model: "m", messages: [{ role: "user", content: [{ type: "input_audio", input_audio: { data: "!!!", format: "wav" } }] }] }, { param: "messages[0].content[0].input_audio.data" }],
  ];
  for (const [body, want] of cases) {
    const r = await call(JSON.stringify(body));
    t.equal(r.status, 400, JSON.stringify(body));
    t.match(r.body.error, { type: "invalid_request_error", ...want }, JSON.stringify(body));
  }
  const newer = await call(JSON.stringify({ model: "m", messages: [{ role: "user", content: [{ type: "text", text: "hi" }, { type: "future_part" }], future_field: 1 }], future_top: { a: 1 } }));
  t.equal(newer.status, 200, "what the gateway does not know passes");
});

t.test("paths beside the route are OpenAI's 404", async (t) => {
  const sub = await call(ok, {}, `${URL_PATH}/chatcmpl-1`, "GET");
  t.equal(sub.status, 404);
  t.match(sub.body, { error: { type: "invalid_request_error", code: "unknown_url" } });
  const get = await call(ok, {}, URL_PATH, "GET");
  t.equal(get.status, 404);
  t.match(get.body, { error: { code: "unknown_url" } });
  const slash = await call(ok, {}, `${URL_PATH}/`);
  t.equal(slash.status, 200, "a trailing slash is the same route");
});
