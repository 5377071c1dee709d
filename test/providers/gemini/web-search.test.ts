// Web search on Gemini: the neutral tool as googleSearch, tool choices around
// it, searches in history left out, and groundingMetadata as a WebSearchCall
// plus citations, whole and streamed.
import t from "tap";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { ChatInputSchema, Role, ToolChoiceMode, WebSearchStatus, type Part } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { toVendorRequest } from "../../../src/providers/gemini/request.js";
import { fromVendorResponse } from "../../../src/providers/gemini/response.js";
import { GeminiStreamTranslator } from "../../../src/providers/gemini/stream.js";
import { collectStream } from "../../../src/core/chat/stream.js";
import { guardStream } from "../../../src/core/chat/stream-guard.js";
import type * as wire from "../../../src/providers/gemini/wire.js";

type Init = MessageInitShape<typeof ChatInputSchema>;
const user = (text: string) => ({ role: Role.USER, parts: [{ kind: { case: "text" as const, value: { text } } }] });
const request = (init: Init) => toVendorRequest(create(ChatInputSchema, { model: "gemini-x", turns: [user("search")], ...init })).body;
const genai = { metadata: { sourceFormat: "generate-content" } };
const search = (value: object = {}, vendorExtras = {}) => ({ kind: { case: "webSearch" as const, value }, vendorExtras });
const fn = { kind: { case: "function" as const, value: { name: "f" } } };

const TOOLS: [name: string, tools: Init["tools"], want: unknown][] = [
  ["the plain tool", [search()], [{ googleSearch: {} }]],
  [
    "blocked domains are excludeDomains; settings Gemini lacks (max uses, allowed domains, location, context size) are left out",
    [search({ maxUses: 2, allowedDomains: ["a.example"], blockedDomains: ["b.example"], userLocation: { city: "Paris" }, contextSize: "low" })],
    [{ googleSearch: { excludeDomains: ["b.example"] } }],
  ],
  [
    "a GenAI client's own settings, as sent",
    [search({}, { gemini: { timeRangeFilter: { startTime: "2026-01-01T00:00:00Z" } } })],
    [{ googleSearch: { timeRangeFilter: { startTime: "2026-01-01T00:00:00Z" } } }],
  ],
  ["beside functions (Codex's every turn): left out, the functions go", [fn, search()], [{ functionDeclarations: [{ name: "f" }] }]],
  ["beside a custom tool (emulated as a function): likewise", [{ kind: { case: "custom", value: { name: "apply_patch" } } }, search()], ["functionDeclarations"]],
];

for (const [name, tools, want] of TOOLS) {
  const got = request({ tools }).tools;
  t.same(Array.isArray(want) && typeof want[0] === "string" ? got?.map((x) => Object.keys(x)[0]) : got, want, name);
}
t.same(request({ tools: [fn, search()], ...genai }).tools, [{ functionDeclarations: [{ name: "f" }] }, { googleSearch: {} }], "a GenAI client's own request: both, as it sent them");

const CHOICES: [name: string, init: Init, tools: unknown, config: unknown][] = [
  [
    "forced: the search alone (the functions it does not allow left out), no calling mode: Gemini decides when to ground",
    { tools: [search(), fn], toolChoice: { mode: ToolChoiceMode.ANY, allowedNames: ["web_search"] } },
    [{ googleSearch: {} }],
    undefined,
  ],
  ["forced as the only tool", { tools: [search()], toolChoice: { mode: ToolChoiceMode.ANY } }, [{ googleSearch: {} }], undefined],
  ["auto with the search alone: no calling mode (Gemini refuses one without functions)", { tools: [search()], toolChoice: { mode: ToolChoiceMode.AUTO } }, [{ googleSearch: {} }], undefined],
  ["none: the search is left out too", { tools: [search()], toolChoice: { mode: ToolChoiceMode.NONE } }, undefined, undefined],
  [
    "among the search and functions: the functions",
    { tools: [search(), fn], toolChoice: { mode: ToolChoiceMode.ANY, allowedNames: ["web_search", "f"] } },
    [{ functionDeclarations: [{ name: "f" }] }],
    { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["f"] } },
  ],
  ["auto beside functions", { tools: [search(), fn], toolChoice: { mode: ToolChoiceMode.AUTO } }, [{ functionDeclarations: [{ name: "f" }] }], { functionCallingConfig: { mode: "AUTO" } }],
  [
    "a function called web_search with no search declared is a function",
    { tools: [{ kind: { case: "function", value: { name: "web_search" } } }], toolChoice: { mode: ToolChoiceMode.ANY, allowedNames: ["web_search"] } },
    [{ functionDeclarations: [{ name: "web_search" }] }],
    { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["web_search"] } },
  ],
  ["a GenAI client's own choice goes as sent", { tools: [search()], toolChoice: { mode: ToolChoiceMode.AUTO }, ...genai }, [{ googleSearch: {} }], { functionCallingConfig: { mode: "AUTO" } }],
];

for (const [name, init, tools, config] of CHOICES) {
  const body = request(init);
  t.same([body.tools, body.toolConfig], [tools, config], name);
}

t.test("searches in history are left out, Gemini's own too (it grounds each answer afresh)", async (t) => {
  const call = (vendorExtras: Part["vendorExtras"]) => ({ kind: { case: "webSearchCall" as const, value: { id: "s", queries: ["q"], status: WebSearchStatus.COMPLETED } }, vendorExtras });
  const body = request({
    turns: [
      user("q"),
      { role: Role.ASSISTANT, parts: [call({ gemini: { groundingMetadata: { webSearchQueries: ["q"] } } }), { kind: { case: "text", value: { text: "answer" } } }] },
      { role: Role.ASSISTANT, parts: [call({ anthropic: { blocks: [{ type: "server_tool_use" }] } })] },
      user("more"),
    ],
  });
  t.same(body.contents, [
    { role: "user", parts: [{ text: "q" }] },
    { role: "model", parts: [{ text: "answer" }] },
    { role: "user", parts: [{ text: "more" }] },
  ]);
});

const grounding = {
  webSearchQueries: ["omnigate gateway", "omnigate ai"],
  searchEntryPoint: { renderedContent: "<div>…</div>" },
  groundingChunks: [
    { web: { uri: "https://vertexaisearch.cloud.google.com/grounding-api-redirect/A", title: "example.com" } },
    { retrievedContext: { uri: "gs://x" } },
    { web: { uri: "https://b.example/", title: "b.example" } },
  ],
  groundingSupports: [
    { segment: { startIndex: 0, endIndex: 10, text: "A gateway." }, groundingChunkIndices: [0, 2], confidenceScores: [0.9, 0.5] },
    { segment: { startIndex: 11, endIndex: 20, text: "Local too." }, groundingChunkIndices: [1] },
  ],
};

const answer = (gm?: Record<string, unknown>): wire.GenerateContentResponse => ({
  candidates: [{ content: { role: "model", parts: [{ text: "A gateway. Local too." }] }, finishReason: "STOP", index: 0, ...(gm ? { groundingMetadata: gm } : {}) }],
  usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 5, totalTokenCount: 10 },
  modelVersion: "gemini-x",
  responseId: "r1",
});

const SOURCES = [
  { url: "https://vertexaisearch.cloud.google.com/grounding-api-redirect/A", title: "example.com" },
  { url: "https://b.example/", title: "b.example" },
];
const CITATIONS = [
  { type: "web_search_result_location", url: SOURCES[0]!.url, title: "example.com", cited_text: "A gateway." },
  { type: "web_search_result_location", url: SOURCES[1]!.url, title: "b.example", cited_text: "A gateway." },
];

/** The parts as plain values: the search (with its extras) and the texts with their citations. */
const view = (parts: Part[]) =>
  parts.map((p) =>
    p.kind.case === "webSearchCall"
      ? { search: { queries: p.kind.value.queries, sources: p.kind.value.sources.map((s) => ({ url: s.url, title: s.title })), status: p.kind.value.status, extras: p.vendorExtras.gemini } }
      : p.kind.case === "text"
        ? { text: p.kind.value.text, citations: p.kind.value.citations }
        : { other: p.kind.case },
  );

let ids = 0;
const ctx = { model: "gemini-x", channel: "g", newId: () => `call_${ids++}` };

t.test("whole: the search before the answer, its citations on the answer's text, the metadata kept", async (t) => {
  const r = fromVendorResponse(answer(grounding), ctx);
  const c = r.candidates[0]!;
  t.same(view(c.parts), [
    { search: { queries: ["omnigate gateway", "omnigate ai"], sources: SOURCES, status: WebSearchStatus.COMPLETED, extras: { groundingMetadata: grounding } } },
    { text: "A gateway. Local too.", citations: CITATIONS },
  ]);
  t.same(c.groundingMetadata, grounding, "a GenAI client still gets it as it came");
  t.same(view(fromVendorResponse(answer(), ctx).candidates[0]!.parts), [{ text: "A gateway. Local too.", citations: [] }], "no grounding: no search");
  const noWeb = { retrievalQueries: ["x"], groundingChunks: [{ retrievedContext: { uri: "gs://x" } }] };
  t.same(
    fromVendorResponse(answer(noWeb), ctx).candidates[0]!.parts.map((p) => p.kind.case),
    ["text"],
    "grounding without a web search is no search",
  );
});

t.test("streamed: citations on the open text, then the search, once per candidate", async (t) => {
  const chunks: wire.GenerateContentResponse[] = [
    { candidates: [{ content: { role: "model", parts: [{ text: "A gateway. " }] }, index: 0 }], responseId: "r1", modelVersion: "gemini-x" },
    { candidates: [{ content: { role: "model", parts: [{ text: "Local too." }] }, index: 0, groundingMetadata: grounding }] },
    { candidates: [{ content: { role: "model", parts: [] }, finishReason: "STOP", index: 0, groundingMetadata: grounding }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 5 } },
  ];
  const tr = new GeminiStreamTranslator(ctx);
  const resp = await collectStream(
    guardStream(
      (async function* () {
        for (const c of chunks) yield* tr.push(c);
      })(),
    ),
  );
  t.same(view(resp.candidates[0]!.parts), [
    { text: "A gateway. Local too.", citations: CITATIONS },
    { search: { queries: ["omnigate gateway", "omnigate ai"], sources: SOURCES, status: WebSearchStatus.COMPLETED, extras: { groundingMetadata: grounding } } },
  ]);
});
