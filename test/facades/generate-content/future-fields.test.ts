// What a newer GenAI SDK (or Gemini CLI) sends that the gateway does not
// model (generationConfig fields, part kinds, tool kinds, enum values,
// request and content fields), sent through the official SDKs (newer fields
// ride in httpOptions.extraBody, as an older SDK sends them): a Gemini
// upstream gets them exactly as sent, an Anthropic and an OpenAI-compatible
// upstream get them left out by the rules of docs/translation.md (a newer
// tool: refused), the local engine answers. And credentials come first: a
// wrong key gets Google's 400 API_KEY_INVALID whatever the body holds.
import t, { type Test } from "tap";
import type { ChannelConfig } from "../../../src/config.js";
import { ADMIN_KEY, ONE_ATTEMPT, startServer, testChannel } from "../../helpers/app.js";
import { fixture, startFakeUpstream, type FakeUpstream, type Recorded } from "../../fixtures/fake-upstream.js";
import { apiError, SDKS, statusOf } from "./sdks.js";

type Body = Record<string, any>;
type Check = (t: Test, req: Recorded) => void;

interface Row {
  name: string;
  /** Merged into the body by the SDK (httpOptions.extraBody). */
  extra: Body;
  gemini: Check;
  anthropic: Check | "refused";
  openai: Check | "refused";
}

const sys = { parts: [{ text: "Sys" }, { futureSystemPart: { k: 1 } }] };

const ROWS: Row[] = [
  {
    name: "generationConfig: an unknown field, an unknown thinkingConfig field, a newer thinking level",
    extra: { generationConfig: { maxOutputTokens: 50, futureKnob: 3, thinkingConfig: { thinkingLevel: "ULTRA", futureThought: true } } },
    gemini: (t, r) => t.same(r.body.generationConfig, { maxOutputTokens: 50, futureKnob: 3, thinkingConfig: { thinkingLevel: "ULTRA", futureThought: true } }, "as sent"),
    anthropic: (t, r) => {
      t.equal(r.body.max_tokens, 50);
      t.notOk(r.body.thinking || r.body.output_config || r.body.futureKnob, "the newer level and fields left out");
    },
    openai: (t, r) => {
      t.equal(r.body.max_tokens, 50);
      t.notOk(r.body.reasoning_effort || r.body.futureKnob);
    },
  },
  {
    name: "parts of an unknown kind, unknown part and content fields, an unknown system part",
    extra: {
      systemInstruction: sys,
      contents: [{ role: "user", parts: [{ text: "Hi" }, { futurePart: { x: 1 } }, { text: "there", futureFlag: true }], futureContentField: "c" }],
    },
    gemini: (t, r) => {
      t.same(r.body.contents, [{ role: "user", parts: [{ text: "Hi" }, { futurePart: { x: 1 } }, { text: "there", futureFlag: true }], futureContentField: "c" }], "as sent");
      t.same(r.body.systemInstruction, sys);
    },
    anthropic: (t, r) => {
      t.equal(r.body.system, "Sys");
      t.same(
        r.body.messages,
        [
          {
            role: "user",
            content: [
              { type: "text", text: "Hi" },
              { type: "text", text: "there" },
            ],
          },
        ],
        "the newer part and fields left out",
      );
    },
    openai: (t, r) => {
      t.same(r.body.messages, [
        { role: "system", content: "Sys" },
        {
          role: "user",
          content: [
            { type: "text", text: "Hi" },
            { type: "text", text: "there" },
          ],
        },
      ]);
    },
  },
  {
    name: "a tool of an unknown kind, unknown declaration fields",
    extra: { tools: [{ functionDeclarations: [{ name: "f", description: "d", behavior: "NON_BLOCKING", futureDeclField: 1 }] }, { futureTool: { mode: "x" } }] },
    gemini: (t, r) => t.same(r.body.tools, [{ functionDeclarations: [{ name: "f", description: "d", behavior: "NON_BLOCKING", futureDeclField: 1 }] }, { futureTool: { mode: "x" } }], "as sent"),
    anthropic: "refused",
    openai: "refused",
  },
  {
    name: "newer enum values: calling mode, media resolution, modality, safety category, threshold and method",
    extra: {
      tools: [{ functionDeclarations: [{ name: "f", description: "d" }] }],
      toolConfig: { functionCallingConfig: { mode: "FUTURE_MODE" } },
      generationConfig: { mediaResolution: "MEDIA_RESOLUTION_ULTRA", responseModalities: ["TEXT", "SMELL"] },
      safetySettings: [
        { category: "HARM_CATEGORY_FUTURE", threshold: "BLOCK_SOME" },
        { category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE", method: "SEVERITY" },
      ],
    },
    gemini: (t, r) => {
      t.same(r.body.toolConfig, { functionCallingConfig: { mode: "FUTURE_MODE" } });
      t.same(r.body.generationConfig, { mediaResolution: "MEDIA_RESOLUTION_ULTRA", responseModalities: ["TEXT", "SMELL"] });
      t.same(r.body.safetySettings, [
        { category: "HARM_CATEGORY_FUTURE", threshold: "BLOCK_SOME" },
        { category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE", method: "SEVERITY" },
      ]);
    },
    anthropic: (t, r) => {
      t.notOk("tool_choice" in r.body, "a newer calling mode: the default");
      t.equal(r.body.tools[0].name, "f");
    },
    openai: (t, r) => {
      t.notOk("tool_choice" in r.body);
      t.equal(r.body.tools[0].function.name, "f");
    },
  },
  {
    name: "unknown request fields",
    extra: { futureTopLevel: { a: [1] }, serviceTier: "flex" },
    gemini: (t, r) => {
      t.same(r.body.futureTopLevel, { a: [1] });
      t.equal(r.body.serviceTier, "flex");
    },
    anthropic: (t, r) => t.notOk("futureTopLevel" in r.body || "serviceTier" in r.body),
    openai: (t, r) => t.notOk("futureTopLevel" in r.body || "serviceTier" in r.body),
  },
];

async function gateway(t: Test) {
  const gemini = await startFakeUpstream(() => ({ json: fixture("gemini/text.json") }));
  const anthropic = await startFakeUpstream(() => ({ json: fixture("anthropic/message-text.json") }));
  const openai = await startFakeUpstream(() => ({ json: fixture("openai/chat-text.json") }));
  const chan = (name: string, provider: ChannelConfig["provider"], url: string, model: string) => testChannel(name, provider, url, [model]);
  const server = await startServer({
    config: {
      upstream: ONE_ATTEMPT,
      channels: [chan("g", "gemini", gemini.url, "gemini-x"), chan("a", "anthropic", anthropic.url, "claude-x"), chan("o", "openai", `${openai.url}/v1`, "gpt-x")],
      local: { chatModels: ["local-x"] },
    } as never,
  });
  t.teardown(async () => {
    await server.close();
    await Promise.all([gemini.close(), anthropic.close(), openai.close()]);
  });
  return { server, upstreams: { "gemini-x": gemini, "claude-x": anthropic, "gpt-x": openai } as Record<string, FakeUpstream> };
}

for (const sdk of SDKS) {
  t.test(`${sdk.name}: newer fields, part kinds, tool kinds and enum values`, async (t) => {
    const { server, upstreams } = await gateway(t);
    const ai = sdk.client(server.baseUrl, ADMIN_KEY);
    const send = (model: string, row: Row) => ai.models.generateContent({ model, contents: "Hi", config: { httpOptions: { extraBody: row.extra } } });

    for (const row of ROWS) {
      t.test(row.name, async (t) => {
        for (const [model, check] of [
          ["gemini-x", row.gemini],
          ["claude-x", row.anthropic],
          ["gpt-x", row.openai],
        ] as const) {
          const up = upstreams[model]!;
          const before = up.requests.length;
          if (check === "refused") {
            const err = await apiError(send(model, row));
            t.equal(err.status, 400, `${model}: refused`);
            const st = statusOf(err);
            t.equal(st.status, "INVALID_ARGUMENT");
            t.match(st.message, /^tools\[1\]: the futureTool tool is not supported/, `${model}: naming the tool`);
            t.equal(up.requests.length, before, `${model}: nothing reached the upstream`);
            continue;
          }
          const r = await send(model, row);
          t.ok(r.candidates?.length, `${model}: answered`);
          t.equal(up.requests.length, before + 1);
          check(t, up.requests.at(-1)!);
        }
        const local = await send("local-x", row);
        t.ok(local.candidates?.length, "the local engine answers");
      });
    }
  });
}

t.test("a wrong key gets Google's 400 API_KEY_INVALID before the body is looked at", async (t) => {
  const server = await startServer();
  t.teardown(() => server.close());
  const GEN = "/v1beta/models/gemini-2.5-flash:generateContent";
  const raw = (path: string, key: string, body?: string) =>
    fetch(`${server.baseUrl}${path}`, { method: body === undefined ? "GET" : "POST", headers: { "x-goog-api-key": key, "content-type": "application/json" }, ...(body === undefined ? {} : { body }) });
  const invalid = JSON.stringify({ contents: "hi", generationConfig: { temperature: "hot" } });
  const keyInvalid = {
    error: {
      code: 400,
      message: "API key not valid. Please pass a valid API key.",
      status: "INVALID_ARGUMENT",
      details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID", domain: "googleapis.com", metadata: { service: "generativelanguage.googleapis.com" } }],
    },
  };

  // A valid key the key cache has not seen yet (the asynchronous check), then a bad body: the body's 400.
  const first = await raw(GEN, ADMIN_KEY, invalid);
  t.equal(first.status, 400);
  t.match(await first.json(), { error: { status: "INVALID_ARGUMENT", details: [{ "@type": "type.googleapis.com/google.rpc.BadRequest" }] } }, "a valid key: the body's field violations");

  for (const attempt of ["a key the cache has not seen", "the same key, now cached as refused"]) {
    for (const [path, body] of [
      [GEN, invalid],
      [GEN, "{not json"],
      ["/v1beta/models/gemini-2.5-flash:countTokens", JSON.stringify({ contents: 3 })],
      ["/v1beta/cachedContents", JSON.stringify({})],
      ["/v1beta/models?pageSize=many", undefined],
    ] as const) {
      const r = await raw(path, "AIza-wrong", body);
      t.equal(r.status, 400, `${attempt}: ${path}: 400`);
      t.same(await r.json(), keyInvalid, "Google's body for a bad key, no field violations");
    }
  }
  const none = await raw(GEN, "", invalid);
  t.equal(none.status, 401, "no key at all: 401 UNAUTHENTICATED, also before the body");
  t.match(await none.json(), { error: { status: "UNAUTHENTICATED" } });

  for (const sdk of SDKS) {
    const err = await apiError(sdk.client(server.baseUrl, "AIza-wrong").models.generateContent({ model: "gemini-2.5-flash", contents: "hi", config: { temperature: 5, candidateCount: 99 } }));
    t.equal(err.status, 400, `${sdk.name}: 400`);
    t.match(statusOf(err), { status: "INVALID_ARGUMENT", details: [{ reason: "API_KEY_INVALID" }] }, `${sdk.name}: API_KEY_INVALID`);
  }
});
