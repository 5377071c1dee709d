// Loopback fake upstream for benchmarks: fixed, vendor-shaped answers for
// OpenAI chat completions, Anthropic messages and Gemini generateContent,
// JSON or SSE (20 content chunks). Plain node:http so it costs little.
import http from "node:http";

const port = Number(process.env.PORT ?? 0);
const CHUNKS = 20;
const words = Array.from({ length: CHUNKS }, (_, i) => `word${i} `);

const openaiJson = JSON.stringify({
  id: "chatcmpl-bench",
  object: "chat.completion",
  created: 1700000000,
  model: "bench",
  choices: [{ index: 0, message: { role: "assistant", content: words.join("") }, finish_reason: "stop" }],
  usage: { prompt_tokens: 12, completion_tokens: CHUNKS, total_tokens: 12 + CHUNKS },
});
const openaiSse =
  words
    .map(
      (w, i) =>
        `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1700000000, model: "bench", choices: [{ index: 0, delta: i === 0 ? { role: "assistant", content: w } : { content: w }, finish_reason: null }] })}\n\n`,
    )
    .join("") +
  `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1700000000, model: "bench", choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage: { prompt_tokens: 12, completion_tokens: CHUNKS, total_tokens: 12 + CHUNKS } })}\n\n` +
  "data: [DONE]\n\n";

const anthropicJson = JSON.stringify({
  id: "msg_bench",
  type: "message",
  role: "assistant",
  model: "bench",
  content: [{ type: "text", text: words.join("") }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 12, output_tokens: CHUNKS, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
});
const ev = (name, data) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
const anthropicSse =
  ev("message_start", {
    type: "message_start",
    message: {
      id: "msg_bench",
      type: "message",
      role: "assistant",
      model: "bench",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 12, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    },
  }) +
  ev("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }) +
  words.map((w) => ev("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: w } })).join("") +
  ev("content_block_stop", { type: "content_block_stop", index: 0 }) +
  ev("message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: CHUNKS } }) +
  ev("message_stop", { type: "message_stop" });

const geminiJson = JSON.stringify({
  candidates: [{ content: { role: "model", parts: [{ text: words.join("") }] }, finishReason: "STOP", index: 0 }],
  usageMetadata: { promptTokenCount: 12, candidatesTokenCount: CHUNKS, totalTokenCount: 12 + CHUNKS },
  modelVersion: "bench",
  responseId: "bench",
});
const geminiSse = words
  .map(
    (w, i) =>
      `data: ${JSON.stringify({ candidates: [{ content: { role: "model", parts: [{ text: w }] }, index: 0, ...(i === CHUNKS - 1 ? { finishReason: "STOP" } : {}) }], usageMetadata: { promptTokenCount: 12, candidatesTokenCount: i + 1, totalTokenCount: 13 + i }, modelVersion: "bench", responseId: "bench" })}\r\n\r\n`,
  )
  .join("");

function send(res, type, body) {
  res.writeHead(200, { "content-type": type, "content-length": Buffer.byteLength(body) });
  res.end(body);
}

function stream(res, type, body) {
  // One write per event, like a real upstream.
  res.writeHead(200, { "content-type": type, "cache-control": "no-cache" });
  const parts = body.split(/(?<=\n\n)/);
  let i = 0;
  const next = () => {
    if (i >= parts.length) return res.end();
    res.write(parts[i++]);
    setImmediate(next);
  };
  next();
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString();
    const streaming = /"stream"\s*:\s*true/.test(body);
    const url = req.url ?? "";
    if (url.endsWith("/chat/completions")) return streaming ? stream(res, "text/event-stream", openaiSse) : send(res, "application/json", openaiJson);
    if (url.endsWith("/messages")) return streaming ? stream(res, "text/event-stream", anthropicSse) : send(res, "application/json", anthropicJson);
    if (url.includes(":streamGenerateContent")) return stream(res, "text/event-stream", geminiSse);
    if (url.includes(":generateContent")) return send(res, "application/json", geminiJson);
    res.writeHead(404, { "content-type": "application/json" });
    res.end('{"error":{"message":"not found"}}');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(port, "127.0.0.1", () => process.stdout.write(`LISTENING ${server.address().port}\n`));
process.on("SIGTERM", () => process.exit(0));
