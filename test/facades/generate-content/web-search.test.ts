// Web search on the generate-content wire: a candidate's searches as
// groundingMetadata (Gemini's own as it came, another vendor's drawn from its
// queries and sources), whole and streamed, and the neutral tool in a cached
// content's tools.
import t from "tap";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { CachedContentSchema, FinishReason, GenerateResponseSchema, WebSearchStatus } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { responseToEvents } from "../../../src/core/chat/stream.js";
import { fromCoreCachedContent } from "../../../src/facades/generate-content/cached-contents.js";
import { GenerateContentStreamTranslator, type Chunk } from "../../../src/facades/generate-content/stream.js";
import { fromCoreResponse } from "../../../src/facades/generate-content/translate-response.js";

type Init = MessageInitShape<typeof GenerateResponseSchema>;
type CandInit = NonNullable<Init["candidates"]>[number];
type PartInit = NonNullable<CandInit["parts"]>[number];

const own = { webSearchQueries: ["omnigate"], groundingChunks: [{ web: { uri: "https://r.example/A", title: "a.example" } }], searchEntryPoint: { renderedContent: "<div/>" } };
const search = (value: object, vendorExtras = {}): PartInit => ({ kind: { case: "webSearchCall", value } as never, vendorExtras });
const text: PartInit = { kind: { case: "text", value: { text: "A gateway." } } };
const answer = (parts: PartInit[], more: { groundingMetadata?: Record<string, never> } = {}) =>
  create(GenerateResponseSchema, {
    id: "r1",
    model: "m",
    modelVersion: "v",
    candidates: [{ index: 0, parts, finishReason: FinishReason.STOP, ...more }],
    usage: { inputTokens: 3n, outputTokens: 2n },
  });

const CASES: [name: string, resp: ReturnType<typeof answer>, grounding: object | undefined][] = [
  ["no search: no grounding", answer([text]), undefined],
  [
    "Gemini's own (whole): the candidate's metadata as it came",
    answer([search({ id: "c", queries: ["omnigate"] }, { gemini: { groundingMetadata: own } }), text], { groundingMetadata: own as never }),
    own,
  ],
  ["Gemini's own, from its part (a stream's whole answer)", answer([text, search({ id: "c", queries: ["omnigate"] }, { gemini: { groundingMetadata: own } })]), own],
  [
    "another vendor's searches: their queries, their sources as web chunks",
    answer([
      search({ id: "srvtoolu_1", queries: ["omnigate"], sources: [{ url: "https://example.com/", title: "Example" }], status: WebSearchStatus.COMPLETED }, { anthropic: { blocks: [] } }),
      text,
      search({ id: "srvtoolu_2", queries: ["more"], sources: [{ url: "https://b.example/", title: "B" }], status: WebSearchStatus.COMPLETED }),
    ]),
    {
      webSearchQueries: ["omnigate", "more"],
      groundingChunks: [{ web: { uri: "https://example.com/", title: "Example" } }, { web: { uri: "https://b.example/", title: "B" } }],
    },
  ],
  ["a search with neither queries nor sources: nothing to tell", answer([search({ id: "x", status: WebSearchStatus.FAILED })]), undefined],
];

/** The chunks of a stream of `resp`, and the candidate of the last one. */
function streamed(resp: ReturnType<typeof answer>): { chunks: Chunk[]; last: Record<string, unknown> } {
  const tr = new GenerateContentStreamTranslator({ includeThoughts: false });
  const chunks: Chunk[] = [];
  for (const e of responseToEvents(resp)) chunks.push(...tr.push(e));
  chunks.push(...tr.end());
  return { chunks, last: (chunks.at(-1)!.candidates as Record<string, unknown>[])[0]! };
}

t.test("a candidate's searches are its groundingMetadata, whole and streamed; no part of their own", async (t) => {
  for (const [name, resp, grounding] of CASES) {
    const cand = (fromCoreResponse(resp, { includeThoughts: false }).candidates as Record<string, unknown>[])[0]!;
    t.same(cand.groundingMetadata, grounding, name);
    t.same(cand.content, { parts: resp.candidates[0]!.parts.some((p) => p.kind.case === "text") ? [{ text: "A gateway." }] : [], role: "model" }, `${name}: only the text is a part`);
    const s = streamed(resp);
    t.same(s.last.groundingMetadata, grounding, `${name} (streamed, on the last chunk)`);
    t.equal(s.chunks.slice(0, -1).filter((c) => (c.candidates as Record<string, unknown>[] | undefined)?.some((x) => x.groundingMetadata)).length, 0, `${name}: on no other chunk`);
  }
});

t.test("a cached content's web search is googleSearch, its own settings with it", async (t) => {
  const cc = create(CachedContentSchema, {
    name: "cachedContents/1",
    model: "gemini-x",
    tools: [{ kind: { case: "webSearch", value: { blockedDomains: ["b.example"] } }, vendorExtras: { gemini: { timeRangeFilter: { startTime: "2026-01-01T00:00:00Z" } } } }],
  });
  t.same(fromCoreCachedContent(cc).tools, [{ googleSearch: { excludeDomains: ["b.example"], timeRangeFilter: { startTime: "2026-01-01T00:00:00Z" } } }]);
});
