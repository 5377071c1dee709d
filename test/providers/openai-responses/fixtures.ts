// Recorded-shape Responses API answers (notes B.5, B.6): a whole Response and
// the SSE stream of the same answer (reasoning with two summaries, text with a
// url citation, a function call, usage), as api.openai.com sends them.

export const ENCRYPTED = "gAAAAABpX1a78BDqk_J4uGoxtDucvs8h-first";

export const reasoningItem = {
  id: "rs_0a1",
  type: "reasoning",
  summary: [
    { type: "summary_text", text: "**Checking the weather**" },
    { type: "summary_text", text: "Paris needs a lookup." },
  ],
  encrypted_content: ENCRYPTED,
};
export const messageItem = {
  id: "msg_0a2",
  type: "message",
  status: "completed",
  role: "assistant",
  content: [
    {
      type: "output_text",
      text: "Let me check Paris.",
      annotations: [{ type: "url_citation", start_index: 13, end_index: 18, url: "https://paris.example/", title: "Paris" }],
      logprobs: [],
    },
  ],
};
export const callItem = { id: "fc_0a3", type: "function_call", status: "completed", arguments: '{"city":"Paris"}', call_id: "call_w1", name: "get_weather" };
export const usage = { input_tokens: 120, input_tokens_details: { cached_tokens: 20 }, output_tokens: 60, output_tokens_details: { reasoning_tokens: 32 }, total_tokens: 180 };

export const wholeResponse = {
  id: "resp_0a",
  object: "response",
  created_at: 1764000000,
  status: "completed",
  error: null,
  incomplete_details: null,
  model: "gpt-5-codex-2025-09-15",
  output: [reasoningItem, messageItem, callItem],
  store: false,
  service_tier: "default",
  usage,
};

type Json = Record<string, unknown>;

/** One SSE frame with an `event:` line and the data's sequence number. */
export function sseFrames(events: Json[]): string[] {
  return events.map((e, i) => `event: ${e.type as string}\ndata: ${JSON.stringify({ ...e, sequence_number: i })}\n\n`);
}

const created = { id: "resp_0a", object: "response", created_at: 1764000000, status: "in_progress", model: "gpt-5-codex-2025-09-15", output: [], usage: null };

/** The stream of wholeResponse, event by event. */
export const streamEvents: Json[] = [
  { type: "response.created", response: created },
  { type: "response.in_progress", response: created },
  { type: "response.output_item.added", output_index: 0, item: { id: "rs_0a1", type: "reasoning", summary: [] } },
  { type: "response.reasoning_summary_part.added", item_id: "rs_0a1", output_index: 0, summary_index: 0, part: { type: "summary_text", text: "" } },
  { type: "response.reasoning_summary_text.delta", item_id: "rs_0a1", output_index: 0, summary_index: 0, delta: "**Checking" },
  { type: "response.reasoning_summary_text.delta", item_id: "rs_0a1", output_index: 0, summary_index: 0, delta: " the weather**" },
  { type: "response.reasoning_summary_text.done", item_id: "rs_0a1", output_index: 0, summary_index: 0, text: "**Checking the weather**" },
  { type: "response.reasoning_summary_part.done", item_id: "rs_0a1", output_index: 0, summary_index: 0, part: { type: "summary_text", text: "**Checking the weather**" } },
  { type: "response.reasoning_summary_part.added", item_id: "rs_0a1", output_index: 0, summary_index: 1, part: { type: "summary_text", text: "" } },
  { type: "response.reasoning_summary_text.delta", item_id: "rs_0a1", output_index: 0, summary_index: 1, delta: "Paris needs a lookup." },
  { type: "response.reasoning_summary_text.done", item_id: "rs_0a1", output_index: 0, summary_index: 1, text: "Paris needs a lookup." },
  { type: "response.reasoning_summary_part.done", item_id: "rs_0a1", output_index: 0, summary_index: 1, part: { type: "summary_text", text: "Paris needs a lookup." } },
  { type: "response.output_item.done", output_index: 0, item: reasoningItem },
  { type: "response.output_item.added", output_index: 1, item: { id: "msg_0a2", type: "message", status: "in_progress", role: "assistant", content: [] } },
  { type: "response.content_part.added", item_id: "msg_0a2", output_index: 1, content_index: 0, part: { type: "output_text", text: "", annotations: [], logprobs: [] } },
  { type: "response.output_text.delta", item_id: "msg_0a2", output_index: 1, content_index: 0, delta: "Let me check ", logprobs: [] },
  { type: "response.output_text.delta", item_id: "msg_0a2", output_index: 1, content_index: 0, delta: "Paris.", logprobs: [] },
  {
    type: "response.output_text.annotation.added",
    item_id: "msg_0a2",
    output_index: 1,
    content_index: 0,
    annotation_index: 0,
    annotation: messageItem.content[0]!.annotations[0],
  },
  { type: "response.output_text.done", item_id: "msg_0a2", output_index: 1, content_index: 0, text: "Let me check Paris.", logprobs: [] },
  { type: "response.content_part.done", item_id: "msg_0a2", output_index: 1, content_index: 0, part: messageItem.content[0] },
  { type: "response.output_item.done", output_index: 1, item: messageItem },
  { type: "response.output_item.added", output_index: 2, item: { ...callItem, status: "in_progress", arguments: "" } },
  { type: "response.function_call_arguments.delta", item_id: "fc_0a3", output_index: 2, delta: '{"city":' },
  { type: "response.function_call_arguments.delta", item_id: "fc_0a3", output_index: 2, delta: '"Paris"}' },
  { type: "response.function_call_arguments.done", item_id: "fc_0a3", output_index: 2, arguments: '{"city":"Paris"}' },
  { type: "response.output_item.done", output_index: 2, item: callItem },
  { type: "response.completed", response: wholeResponse },
];
