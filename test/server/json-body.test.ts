// Bodies nested thousands of levels deep in a free-form field (a tool's
// input, a schema, a function call's args) parsed, and then overflowed the
// stack in what recurses after the parse: a 500. Strings with half of a
// surrogate pair broke where the neutral model is copied: a 500. Both are a
// 400 in each format now, sent through the official SDKs where they can.
import t from "tap";
import OpenAI from "openai";
import { MAX_JSON_DEPTH, nestedDeeperThan, unpairedSurrogateAt } from "../../src/server/json-body.js";
import { SDKS as ANTHROPIC, MODEL as CLAUDE } from "../facades/messages/sdks.js";
import { SDKS as GENAI, MODEL as GEMINI, apiError, statusOf } from "../facades/generate-content/sdks.js";
import { ADMIN_KEY, startServer, type TestServer } from "../helpers/app.js";

/** An array nested `n` levels deep ([] is one level). */
const arrays = (n: number): unknown => {
  let v: unknown = [];
  for (let i = 1; i < n; i++) v = [v];
  return v;
};
/** The same as JSON text, for depths JSON.stringify cannot reach (its own stack gives out near 5,000). */
const arraysText = (n: number) => "[".repeat(n) + "]".repeat(n);
/** An object schema nested `n` levels of properties deep. */
const schemaOf = (n: number): Record<string, unknown> => {
  let s: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < n; i++) s = { type: "object", properties: { a: s } };
  return s;
};

t.test("nestedDeeperThan", async (t) => {
  const table: [unknown, number, boolean][] = [
    [1, 0, false],
    ["[[[[", 0, false],
    [null, 0, false],
    [{}, 0, true],
    [{}, 1, false],
    [[[]], 1, true],
    [[[]], 2, false],
    [arrays(MAX_JSON_DEPTH), MAX_JSON_DEPTH, false],
    [arrays(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH, true],
    [{ a: 1, b: [1, 2, { c: [] }] }, 4, false],
    [{ a: 1, b: [1, 2, { c: [] }] }, 3, true],
    [[1, 2, 3, [4, [5]]], 3, false],
    [Array.from({ length: 10_000 }, () => ({ x: [1] })), 3, false],
    [arrays(100_000), MAX_JSON_DEPTH, true],
  ];
  table.forEach(([v, max, want], i) => t.equal(nestedDeeperThan(v, max), want, `row ${i}: deeper than ${max}`));
});

t.test("unpairedSurrogateAt", async (t) => {
  const table: [unknown, string | undefined][] = [
    ["plain", undefined],
    ["emoji \ud83d\ude00 paired", undefined],
    ["\ud83d", "$"],
    ["cut \ud83d", "$"],
    ["\ude00 alone", "$"],
    ["\ude00\ud83d", "$"],
    [{ a: ["x", { b: "ok\ud800" }] }, "$.a[1].b"],
    [{ ["k\udc00"]: 1 }, "$.k\udc00"],
    [[1, null, true, "\ud83d\ude00"], undefined],
    [{ a: 1, b: [2, 3], c: { d: "e" } }, undefined],
  ];
  table.forEach(([v, want], i) => t.equal(unpairedSurrogateAt(v), want, `row ${i}`));
});

let server: TestServer;
t.before(async () => {
  server = await startServer({});
});
t.teardown(() => server.close());

const post = (path: string, headers: Record<string, string>, body: string) =>
  fetch(server.baseUrl + path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as Record<string, unknown>,
  }));

for (const sdk of ANTHROPIC) {
  t.test(`Messages through ${sdk.name}`, async (t) => {
    const client = sdk.client(server.baseUrl, ADMIN_KEY);
    const deepInput = { x: arrays(1000) };
    const err = await client.messages
      .create({
        model: CLAUDE,
        max_tokens: 64,
        tools: [{ name: "f", input_schema: { type: "object" } }],
        messages: [
          { role: "user", content: "hi" },
          { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "f", input: deepInput }] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }] },
        ],
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    t.ok(err instanceof sdk.errors.BadRequestError, "a tool input 1,000 levels deep: BadRequestError");
    t.match((err as { error?: unknown }).error, { type: "error", error: { type: "invalid_request_error", message: /nested more than 100 levels/ } });

    // The schema alone nested to just under the limit (the body adds 4 levels around it) is served.
    const ok = await client.messages.create({
      model: CLAUDE,
      max_tokens: 64,
      tools: [{ name: "f", input_schema: schemaOf(46) as never }],
      messages: [{ role: "user", content: "hi" }],
    });
    t.equal(ok.type, "message", "a schema 93 levels deep is served");
  });
}

for (const sdk of GENAI) {
  t.test(`generateContent through ${sdk.name}`, async (t) => {
    const ai = sdk.client(server.baseUrl, ADMIN_KEY);
    const err = await apiError(
      ai.models.generateContent({
        model: GEMINI,
        contents: [
          { role: "user", parts: [{ text: "hi" }] },
          { role: "model", parts: [{ functionCall: { name: "f", args: { x: arrays(1000) } } }] },
          { role: "user", parts: [{ functionResponse: { name: "f", response: { r: 1 } } }] },
        ],
      }),
    );
    t.equal(err.status, 400, "function call args 1,000 levels deep: 400");
    t.match(statusOf(err), { code: 400, status: "INVALID_ARGUMENT", message: /nested more than 100 levels/ });
  });
}

t.test("5,000 levels (a 500 before: the stack gave out after the parse), and the other formats", async (t) => {
  const messages = await post(
    "/v1/messages",
    { "x-api-key": ADMIN_KEY, "anthropic-version": "2023-06-01" },
    `{"model":"${CLAUDE}","max_tokens":64,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{"x":${arraysText(5000)}}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}],"tools":[{"name":"f","input_schema":{"type":"object"}}]}`,
  );
  t.equal(messages.status, 400);
  t.match(messages.body, { type: "error", error: { type: "invalid_request_error" } }, "Messages");
  const gemini = await post(
    `/v1beta/models/${GEMINI}:generateContent`,
    { "x-goog-api-key": ADMIN_KEY },
    `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"object","properties":{"x":${'{"a":'.repeat(5000)}1${"}".repeat(5000)}}}}}`,
  );
  t.equal(gemini.status, 400);
  t.match(gemini.body, { error: { code: 400, status: "INVALID_ARGUMENT" } }, "generateContent");
  const bearer = { authorization: `Bearer ${ADMIN_KEY}` };
  const deep = arraysText(5000);
  const images = await post("/v1/images/generations", bearer, `{"model":"dall-e-2","prompt":"cat","user":${deep}}`);
  t.equal(images.status, 400);
  t.match(images.body, { error: { type: "invalid_request_error", message: String } }, "OpenAI images");
  const bot = await post("/ib/submit/imagine", bearer, `{"prompt":"cat","state":${deep}}`);
  t.equal(bot.status, 400);
  t.match(bot.body, { code: Number, description: String }, "image-bot");
  const video = await post("/v1/video/generations", bearer, `{"model":"kling-v1","prompt":"a cat","metadata":${deep}}`);
  t.equal(video.status, 400);
  t.match(video.body, { code: String, message: String }, "video tasks");
});

t.test("an unpaired surrogate is a 400 in each format; a paired one is served", async (t) => {
  const cut = "a string cut inside an emoji \ud83d";
  const anthropic = ANTHROPIC[0]!.client(server.baseUrl, ADMIN_KEY);
  const err = await anthropic.messages.create({ model: CLAUDE, max_tokens: 64, messages: [{ role: "user", content: cut }] }).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(err instanceof ANTHROPIC[0]!.errors.BadRequestError, "Messages through the SDK: BadRequestError");
  t.match((err as { error?: unknown }).error, { type: "error", error: { type: "invalid_request_error", message: /\$\.messages\[0\]\.content holds an unpaired UTF-16 surrogate/ } });

  const openai = new OpenAI({ baseURL: `${server.baseUrl}/v1`, apiKey: ADMIN_KEY, maxRetries: 0 });
  for (const [name, call] of [
    ["Chat Completions", () => openai.chat.completions.create({ model: CLAUDE, messages: [{ role: "user", content: cut }] })],
    ["Chat Completions, streamed", () => openai.chat.completions.create({ model: CLAUDE, stream: true, messages: [{ role: "user", content: cut }] })],
    // With reasoning the local engine thinks about the text: the path that was a 500.
    ["Responses", () => openai.responses.create({ model: CLAUDE, input: cut, reasoning: { effort: "low" } })],
    ["Embeddings", () => openai.embeddings.create({ model: "text-embedding-3-small", input: [cut] })],
  ] as const) {
    const e = await (call as () => Promise<unknown>)().then(
      () => undefined,
      (x: unknown) => x,
    );
    t.ok(e instanceof OpenAI.BadRequestError, `${name} through the SDK: BadRequestError`);
    t.match((e as { error?: unknown }).error, { type: "invalid_request_error", message: /unpaired UTF-16 surrogate/ }, name);
  }

  const gemini = await post(`/v1beta/models/${GEMINI}:generateContent`, { "x-goog-api-key": ADMIN_KEY }, JSON.stringify({ contents: [{ role: "user", parts: [{ text: cut }] }] }));
  t.equal(gemini.status, 400);
  t.match(gemini.body, { error: { code: 400, status: "INVALID_ARGUMENT", message: /\$\.contents\[0\]\.parts\[0\]\.text holds an unpaired/ } }, "generateContent");
  const bearer = { authorization: `Bearer ${ADMIN_KEY}` };
  const images = await post("/v1/images/generations", bearer, JSON.stringify({ model: "dall-e-2", prompt: cut }));
  t.equal(images.status, 400);
  t.match(images.body, { error: { type: "invalid_request_error" } }, "OpenAI images");
  const bot = await post("/ib/submit/imagine", bearer, JSON.stringify({ prompt: cut }));
  t.equal(bot.status, 400);
  t.match(bot.body, { code: Number, description: String }, "image-bot");
  const video = await post("/v1/video/generations", bearer, JSON.stringify({ model: "kling-v1", prompt: cut }));
  t.equal(video.status, 400);
  t.match(video.body, { code: String, message: String }, "video tasks");

  // The same emoji whole, escaped as Python's json.dumps sends it: served.
  const paired = await post("/v1/responses", bearer, `{"model":"${CLAUDE}","input":"an emoji \\ud83d\\ude00","reasoning":{"effort":"low"}}`);
  t.equal(paired.status, 200, "a surrogate pair escaped in the JSON text is served");
  t.match(JSON.stringify(paired.body), /\u{1F600}/u, "and reaches the answer whole");
});
