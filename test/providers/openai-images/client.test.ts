// The images client's reads are bounded: an answer longer than its limit is
// no result, an error answer longer than its own is still its status, and a
// streamed request comes back as events or, from a server that answers
// whole, as the JSON it sent.
import t from "tap";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Code, ConnectError } from "@connectrpc/connect";
import { openaiClient } from "../../../src/providers/openai-images/client.js";
import { errorDetail } from "../../../src/core/errors.js";

/** A server that answers every request with the status, type and body of `answer(path)`. */
async function serve(answer: (path: string) => { status: number; type: string; body: string }): Promise<{ base: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const a = answer(req.url ?? "");
      res.writeHead(a.status, { "content-type": a.type });
      res.end(a.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, server };
}

const png = Buffer.from("89504e470d0a1a0a", "hex").toString("base64");
const long = JSON.stringify({ data: [{ b64_json: "A".repeat(4096) }] });

t.test("answers and error answers are read up to their limits", async (t) => {
  const { base, server } = await serve((path) => {
    if (path.endsWith("/big")) return { status: 200, type: "application/json", body: long };
    if (path.endsWith("/small")) return { status: 200, type: "application/json", body: JSON.stringify({ data: [{ b64_json: png }] }) };
    return { status: 429, type: "application/json", body: JSON.stringify({ error: { message: "x".repeat(100_000), code: "rate_limit_exceeded" } }) };
  });
  t.teardown(() => server.close());
  const client = openaiClient({ channel: "c", baseUrl: base, apiKey: "k", maxAnswerBytes: 1024 });
  t.teardown(() => client.close());
  const signal = new AbortController().signal;

  t.same(await client.postJson("/small", {}, signal, "r"), { data: [{ b64_json: png }] }, "an answer under the limit is read");
  const big = await client.postJson("/big", {}, signal, "r").catch((e: unknown) => e);
  t.ok(big instanceof ConnectError && big.code === Code.Unavailable, "an answer over the limit is no result");
  t.equal(big instanceof ConnectError ? errorDetail(big)?.reason : undefined, "upstream_bad_response");
  const limited = await client.postJson("/limited", {}, signal, "r").catch((e: unknown) => e);
  t.ok(limited instanceof ConnectError && limited.code === Code.ResourceExhausted, "an error answer over its limit keeps its status");
});

t.test("a streamed request: events unread, or the JSON of a server that answered whole", async (t) => {
  const { base, server } = await serve((path) =>
    path.endsWith("/sse")
      ? { status: 200, type: "text/event-stream; charset=utf-8", body: 'data: {"type":"image_generation.completed"}\n\n' }
      : path.endsWith("/big")
        ? { status: 200, type: "application/json", body: long }
        : { status: 200, type: "application/json", body: JSON.stringify({ data: [{ b64_json: png }] }) },
  );
  t.teardown(() => server.close());
  const client = openaiClient({ channel: "c", baseUrl: base, apiKey: "k", maxAnswerBytes: 1024 });
  t.teardown(() => client.close());
  const signal = new AbortController().signal;

  const sse = await client.streamJson("/sse", {}, signal, "r");
  t.ok(sse.events, "server-sent events come back as a body to read");
  let text = "";
  for await (const c of sse.events!) text += String(c);
  t.match(text, /image_generation\.completed/);
  t.same((await client.streamJson("/whole", {}, signal, "r")).json, { data: [{ b64_json: png }] }, "a whole answer comes back read");
  const big = await client.streamJson("/big", {}, signal, "r").catch((e: unknown) => e);
  t.ok(big instanceof ConnectError && big.code === Code.Unavailable, "a whole answer over the limit is no result");
});
