// Every error status of the generate-content edge (spec 7.5) as google.rpc.Status
// bodies, seen through both SDK generations' ApiError, plus bad input answered
// with 4xx and a fieldViolation naming the field (never a 500). Faults come from
// the local engine's `#fault:<kind>` directives.
import t from "tap";
import { ADMIN_KEY, startServer, type TestServer } from "../../helpers/app.js";
import { MODEL, SDKS, apiError, statusOf, violations } from "./sdks.js";

let server: TestServer;
let small: TestServer;
t.before(async () => {
  server = await startServer();
  small = await startServer({ config: { bodyLimitBytes: 2048 } });
});
t.teardown(async () => {
  await server.close();
  await small.close();
});

const FAULTS: [string, number, string][] = [
  ["rate_limit", 429, "RESOURCE_EXHAUSTED"],
  ["overloaded", 503, "UNAVAILABLE"],
  ["internal", 500, "INTERNAL"],
  ["timeout", 504, "DEADLINE_EXCEEDED"],
  ["permission", 403, "PERMISSION_DENIED"],
];

const detail = (details: Record<string, unknown>[] | undefined, type: string) => (details ?? []).find((d) => d["@type"] === `type.googleapis.com/google.rpc.${type}`);

for (const sdk of SDKS) {
  t.test(sdk.name, async (t) => {
    const ai = sdk.client(server.baseUrl, ADMIN_KEY);

    for (const [fault, status, name] of FAULTS) {
      t.test(`#fault:${fault} -> ${status} ${name}`, async (t) => {
        const err = await apiError(ai.models.generateContent({ model: MODEL, contents: `hello #fault:${fault}` }));
        t.ok(err instanceof sdk.ApiError, "the SDK's ApiError");
        t.equal(err.status, status);
        const st = statusOf(err);
        t.equal(st.code, status);
        t.equal(st.status, name);
        t.match(st.message, /\S/);
        t.ok(detail(st.details, "ErrorInfo"), "ErrorInfo detail");
        if (fault === "rate_limit") t.same(detail(st.details, "RetryInfo"), { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "1s" });
        const streamErr = await apiError(
          (async () => {
            for await (const _ of await ai.models.generateContentStream({ model: MODEL, contents: `hello #fault:${fault}` })) void _;
          })(),
        );
        t.equal(streamErr.status, status, "a stream that fails before its first chunk gets the HTTP status");
      });
    }

    t.test("mid-stream failure arrives as an error chunk", async (t) => {
      const seen: string[] = [];
      const err = await apiError(
        (async () => {
          for await (const c of await ai.models.generateContentStream({ model: MODEL, contents: "tell me a long story please #fault:midstream" })) seen.push(c.text ?? "");
        })(),
      );
      t.ok(seen.length >= 1, "some chunks came first");
      t.ok(err instanceof sdk.ApiError);
      t.equal(err.status, 503);
      t.equal(statusOf(err).status, "UNAVAILABLE");
    });

    t.test("a bad key gets Google's 400 API_KEY_INVALID", async (t) => {
      const bad = sdk.client(server.baseUrl, "sk-not-a-real-key");
      const err = await apiError(bad.models.generateContent({ model: MODEL, contents: "hi" }));
      t.ok(err instanceof sdk.ApiError);
      t.equal(err.status, 400);
      t.equal(statusOf(err).status, "INVALID_ARGUMENT");
      t.equal(statusOf(err).message, "API key not valid. Please pass a valid API key.");
      t.same(detail(statusOf(err).details, "ErrorInfo"), {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        reason: "API_KEY_INVALID",
        domain: "googleapis.com",
        metadata: { service: "generativelanguage.googleapis.com" },
      });
      t.equal((await apiError(bad.models.list())).status, 400, "listing models needs a key too");
      t.equal((await apiError(bad.caches.list())).status, 400);
    });

    t.test("404 for an unknown model action and resource", async (t) => {
      const res = await fetch(`${server.baseUrl}/${sdk.version}/models/${MODEL}:predict`, {
        method: "POST",
        headers: { "x-goog-api-key": ADMIN_KEY, "content-type": "application/json" },
        body: "{}",
      });
      t.equal(res.status, 404);
      const body = (await res.json()) as { error: { code: number; status: string } };
      t.same([body.error.code, body.error.status], [404, "NOT_FOUND"]);
      const gone = await apiError(ai.caches.get({ name: "cachedContents/doesnotexist" }));
      t.equal(gone.status, 404);
      t.equal(statusOf(gone).status, "NOT_FOUND");
    });

    t.test("413 for a body over the limit", async (t) => {
      const tiny = sdk.client(small.baseUrl, ADMIN_KEY);
      const err = await apiError(tiny.models.generateContent({ model: MODEL, contents: "x".repeat(5000) }));
      t.ok(err instanceof sdk.ApiError);
      t.equal(err.status, 413);
      t.equal(statusOf(err).status, "PAYLOAD_TOO_LARGE");
    });

    t.test("400 from the SDK for out-of-range config", async (t) => {
      const err = await apiError(ai.models.generateContent({ model: MODEL, contents: "hi", config: { temperature: 3 } }));
      t.equal(err.status, 400);
      const st = statusOf(err);
      t.equal(st.status, "INVALID_ARGUMENT");
      t.equal(violations(st.details)[0]?.field, "generationConfig.temperature");
    });
  });
}

/** Raw requests, for input no SDK would send. */
async function post(path: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.baseUrl}${path}`, { method: "POST", headers: { "content-type": "application/json", "x-goog-api-key": ADMIN_KEY, ...headers }, body });
  const text = await res.text();
  return {
    status: res.status,
    type: res.headers.get("content-type") ?? "",
    json: JSON.parse(text) as { error: { code: number; status: string; message: string; details?: Record<string, unknown>[] } },
  };
}

const GEN = `/v1beta/models/${MODEL}:generateContent`;
const hi = [{ role: "user", parts: [{ text: "hi" }] }];

t.test("bad input gets 400 INVALID_ARGUMENT naming the field", async (t) => {
  const cases: [string, string, string | RegExp][] = [
    ["malformed JSON", '{"contents": [', ""],
    ["missing contents", JSON.stringify({}), "contents"],
    ["empty contents", JSON.stringify({ contents: [] }), "contents"],
    ["contents not a list", JSON.stringify({ contents: "hi" }), "contents"],
    ["parts missing", JSON.stringify({ contents: [{ role: "user" }] }), "contents[0].parts"],
    ["text not a string", JSON.stringify({ contents: [{ parts: [{ text: 5 }] }] }), "contents[0].parts[0].text"],
    ["bad role", JSON.stringify({ contents: [{ role: "assistant", parts: [{ text: "x" }] }] }), "contents[0].role"],
    ["two data fields", JSON.stringify({ contents: [{ parts: [{ text: "x", inlineData: { mimeType: "image/png", data: "AAAA" } }] }] }), "contents[0].parts[0]"],
    ["empty part", JSON.stringify({ contents: [{ parts: [{}] }] }), "contents[0].parts[0]"],
    ["bad base64", JSON.stringify({ contents: [{ parts: [{ inlineData: { mimeType: "image/png", data: "!!notbase64!!" } }] }] }), "contents[0].parts[0].inlineData.data"],
    ["fileData", JSON.stringify({ contents: [{ parts: [{ fileData: { mimeType: "application/pdf", fileUri: "gs://b/f.pdf" } }] }] }), "contents[0].parts[0].fileData"],
    ["temperature 3", JSON.stringify({ contents: hi, generationConfig: { temperature: 3 } }), "generationConfig.temperature"],
    ["temperature a string", JSON.stringify({ contents: hi, generationConfig: { temperature: "hot" } }), "generationConfig.temperature"],
    ["six stop sequences", JSON.stringify({ contents: hi, generationConfig: { stopSequences: ["a", "b", "c", "d", "e", "f"] } }), "generationConfig.stopSequences"],
    ["maxOutputTokens 0", JSON.stringify({ contents: hi, generationConfig: { maxOutputTokens: 0 } }), "generationConfig.maxOutputTokens"],
    ["fractional topK", JSON.stringify({ contents: hi, generationConfig: { topK: 1.5 } }), "generationConfig.topK"],
    ["candidateCount 9", JSON.stringify({ contents: hi, generationConfig: { candidateCount: 9 } }), "generationConfig.candidateCount"],
    ["bad mime type", JSON.stringify({ contents: hi, generationConfig: { responseMimeType: "text/html" } }), "generationConfig.responseMimeType"],
    ["schema without JSON mime", JSON.stringify({ contents: hi, generationConfig: { responseSchema: { type: "STRING" } } }), "generationConfig.responseMimeType"],
    ["bad schema type", JSON.stringify({ contents: hi, generationConfig: { responseMimeType: "application/json", responseSchema: { type: "WORD" } } }), "generationConfig.responseSchema.type"],
    ["enum mime without enum", JSON.stringify({ contents: hi, generationConfig: { responseMimeType: "text/x.enum", responseSchema: { type: "STRING" } } }), "generationConfig.responseSchema"],
    ["logprobs without responseLogprobs", JSON.stringify({ contents: hi, generationConfig: { logprobs: 3 } }), "generationConfig.logprobs"],
    ["thinkingBudget -5", JSON.stringify({ contents: hi, generationConfig: { thinkingConfig: { thinkingBudget: -5 } } }), "generationConfig.thinkingConfig.thinkingBudget"],
    [
      "allowed names with AUTO",
      JSON.stringify({ contents: hi, tools: [{ functionDeclarations: [{ name: "f" }] }], toolConfig: { functionCallingConfig: { mode: "AUTO", allowedFunctionNames: ["f"] } } }),
      "toolConfig.functionCallingConfig.allowedFunctionNames",
    ],
    [
      "allowed name not declared",
      JSON.stringify({ contents: hi, tools: [{ functionDeclarations: [{ name: "f" }] }], toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["g"] } } }),
      "toolConfig.functionCallingConfig.allowedFunctionNames",
    ],
    ["bad function name", JSON.stringify({ contents: hi, tools: [{ functionDeclarations: [{ name: "no spaces allowed" }] }] }), "tools[0].functionDeclarations[0].name"],
    ["duplicate function", JSON.stringify({ contents: hi, tools: [{ functionDeclarations: [{ name: "f" }, { name: "f" }] }] }), "tools[0].functionDeclarations[1].name"],
    [
      "bad parameter schema",
      JSON.stringify({ contents: hi, tools: [{ functionDeclarations: [{ name: "f", parameters: { type: "OBJECT", properties: { a: { type: "BLOB" } } } }] }] }),
      "tools[0].functionDeclarations[0].parameters.properties.a.type",
    ],
    ["system with an image", JSON.stringify({ contents: hi, systemInstruction: { parts: [{ inlineData: { mimeType: "image/png", data: "AAAA" } }] } }), "systemInstruction.parts[0]"],
    ["bad cachedContent name", JSON.stringify({ contents: hi, cachedContent: "caches/1" }), "cachedContent"],
    [
      "bad thought signature",
      JSON.stringify({ contents: [{ role: "model", parts: [{ text: "x", thoughtSignature: Buffer.from('omnigate:thought:{"i":1}').toString("base64") }] }, ...hi] }),
      "contents[0].parts[0].thoughtSignature",
    ],
  ];
  for (const [name, body, field] of cases) {
    const r = await post(GEN, body);
    t.equal(r.status, 400, `${name}: 400`);
    t.match(r.type, /application\/json/);
    t.equal(r.json.error.status, "INVALID_ARGUMENT", `${name}: INVALID_ARGUMENT`);
    t.equal(r.json.error.code, 400);
    const v = violations(r.json.error.details);
    t.ok(v.length > 0, `${name}: has fieldViolations`);
    if (field)
      t.ok(
        v.some((x) => x.field === field),
        `${name}: names ${String(field)} (got ${v.map((x) => x.field).join(", ")})`,
      );
  }
  const fileData = await post(GEN, JSON.stringify({ contents: [{ parts: [{ fileData: { mimeType: "application/pdf", fileUri: "gs://b/f.pdf" } }] }] }));
  t.match(fileData.json.error.message, /fileData: fileUri must name a file uploaded to this gateway/);
});

t.test("enum values newer than the gateway are served, not refused", async (t) => {
  const cases: [string, string][] = [
    ["newer modality", JSON.stringify({ contents: hi, generationConfig: { responseModalities: ["SMELL"] } })],
    ["newer media resolution", JSON.stringify({ contents: hi, generationConfig: { mediaResolution: "ULTRA" } })],
    ["newer safety category", JSON.stringify({ contents: hi, safetySettings: [{ category: "HARM_CATEGORY_RUDENESS", threshold: "BLOCK_NONE" }] })],
    ["newer safety threshold", JSON.stringify({ contents: hi, safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_SOME" }] })],
    ["newer calling mode", JSON.stringify({ contents: hi, toolConfig: { functionCallingConfig: { mode: "SOMETIMES" } } })],
  ];
  for (const [name, body] of cases) t.equal((await post(GEN, body)).status, 200, name);
});

t.test("401 without a key, and ?key= works", async (t) => {
  const r = await post(GEN, JSON.stringify({ contents: hi }), { "x-goog-api-key": "" });
  t.equal(r.status, 401);
  t.equal(r.json.error.status, "UNAUTHENTICATED");
  const ok = await fetch(`${server.baseUrl}${GEN}?key=${ADMIN_KEY}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ contents: hi }) });
  t.equal(ok.status, 200);
  const models = await fetch(`${server.baseUrl}/v1beta/models`);
  t.equal(models.status, 401);
});

t.test("unknown paths under /v1beta are Google-shaped 404s", async (t) => {
  const r = await fetch(`${server.baseUrl}/v1beta/tunedModels/x:generateContent`, { method: "POST", headers: { "x-goog-api-key": ADMIN_KEY } });
  t.equal(r.status, 404);
  t.equal(((await r.json()) as { error: { status: string } }).error.status, "NOT_FOUND");
  const noAction = await post(`/v1beta/models/${MODEL}`, "{}");
  t.equal(noAction.status, 404);
});

t.test("bad alt and bad pageSize", async (t) => {
  const r = await post(`/v1beta/models/${MODEL}:streamGenerateContent?alt=xml`, JSON.stringify({ contents: hi }));
  t.equal(r.status, 400);
  t.equal(violations(r.json.error.details)[0]?.field, "alt");
  const p = await fetch(`${server.baseUrl}/v1beta/models?pageSize=lots`, { headers: { "x-goog-api-key": ADMIN_KEY } });
  t.equal(p.status, 400);
  const body = (await p.json()) as { error: { details: Record<string, unknown>[] } };
  t.equal(violations(body.error.details)[0]?.field, "pageSize");
  const tok = await fetch(`${server.baseUrl}/v1beta/models?pageToken=zz`, { headers: { "x-goog-api-key": ADMIN_KEY } });
  t.equal(tok.status, 400);
  t.equal(violations(((await tok.json()) as { error: { details: Record<string, unknown>[] } }).error.details)[0]?.field, "pageToken");
});

t.test("raw streams: SSE framing, the JSON array, and errors inside them", async (t) => {
  const sse = await fetch(`${server.baseUrl}/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-goog-api-key": ADMIN_KEY },
    body: JSON.stringify({ contents: [{ parts: [{ text: "count with me one two three" }] }] }),
  });
  t.equal(sse.status, 200);
  t.match(sse.headers.get("content-type"), /^text\/event-stream/);
  t.match(sse.headers.get("request-id"), /\S/);
  const text = await sse.text();
  t.ok(text.endsWith("\r\n\r\n"), "ends with the delimiter");
  const events = text.split("\r\n\r\n").filter(Boolean);
  t.ok(events.length > 2);
  for (const e of events) {
    t.ok(e.startsWith("data: "), "only data lines");
    t.notOk(e.includes("\n"), "one line per event");
    JSON.parse(e.slice(6));
  }
  const last = JSON.parse(events.at(-1)!.slice(6)) as { candidates: { finishReason: string }[]; usageMetadata: { candidatesTokenCount: number } };
  t.equal(last.candidates[0]!.finishReason, "STOP");
  t.ok(last.usageMetadata.candidatesTokenCount > 0);

  const arr = await fetch(`${server.baseUrl}/v1beta/models/${MODEL}:streamGenerateContent`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-goog-api-key": ADMIN_KEY },
    body: JSON.stringify({ contents: [{ parts: [{ text: "count with me one two three" }] }] }),
  });
  t.equal(arr.status, 200);
  t.match(arr.headers.get("content-type"), /^application\/json/);
  const elements = JSON.parse(await arr.text()) as { candidates?: { content: { parts: { text?: string }[] }; finishReason?: string }[] }[];
  t.ok(Array.isArray(elements) && elements.length > 2, "a JSON array of several responses");
  t.equal(elements.map((e) => e.candidates![0]!.content.parts.map((p) => p.text ?? "").join("")).join(""), "You said: count with me one two three");
  t.equal(elements.at(-1)!.candidates![0]!.finishReason, "STOP");

  const midSse = await fetch(`${server.baseUrl}/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-goog-api-key": ADMIN_KEY },
    body: JSON.stringify({ contents: [{ parts: [{ text: "a long story #fault:midstream" }] }] }),
  });
  const midEvents = (await midSse.text()).split("\r\n\r\n").filter(Boolean);
  const errEvent = JSON.parse(midEvents.at(-1)!.slice(6)) as { error: { code: number; status: string } };
  t.same([errEvent.error.code, errEvent.error.status], [503, "UNAVAILABLE"], "the last SSE event is the error");
  t.ok(midEvents.length >= 2, "content came before the error");

  const midArr = await fetch(`${server.baseUrl}/v1beta/models/${MODEL}:streamGenerateContent`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-goog-api-key": ADMIN_KEY },
    body: JSON.stringify({ contents: [{ parts: [{ text: "a long story #fault:midstream" }] }] }),
  });
  const midElements = JSON.parse(await midArr.text()) as { error?: { status: string } }[];
  t.equal(midElements.at(-1)!.error?.status, "UNAVAILABLE", "the array still parses and ends with the error");
});

t.test("shared /v1/models paths answer Gemini callers in Gemini's shape", async (t) => {
  const byHeader = await fetch(`${server.baseUrl}/v1/models`, { headers: { "x-goog-api-key": ADMIN_KEY } });
  t.equal(byHeader.status, 200);
  const list = (await byHeader.json()) as { models: { name: string; supportedGenerationMethods: string[] }[] };
  t.ok(
    list.models.every((m) => m.name.startsWith("models/")),
    "Gemini Model names",
  );
  t.ok(list.models[0]!.supportedGenerationMethods.includes("generateContent"));
  const byQuery = await fetch(`${server.baseUrl}/v1/models/${MODEL}?key=${ADMIN_KEY}`);
  t.equal(((await byQuery.json()) as { name: string }).name, `models/${MODEL}`);
  const openai = await fetch(`${server.baseUrl}/v1/models`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  t.notOk("models" in ((await openai.json()) as object), "other callers get another facade's shape");
});

t.test("odd model paths are 4xx, never 500", async (t) => {
  for (const path of [`/v1beta/models/bad%ZZname:generateContent`, `/v1beta/models/%3AgenerateContent`, `/v1beta/models/x%3AgenerateContent`]) {
    const r = await fetch(`${server.baseUrl}${path}`, { method: "POST", headers: { "content-type": "application/json", "x-goog-api-key": ADMIN_KEY }, body: JSON.stringify({ contents: hi }) });
    t.ok(r.status < 500, `${path}: ${r.status}`);
    t.match(r.headers.get("content-type"), /application\/json/);
  }
});
