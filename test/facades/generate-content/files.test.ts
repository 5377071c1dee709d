// The Gemini Files API through both GenAI SDK generations (files.upload with
// its resumable protocol, get, list, delete), and a file named by fileData in
// generateContent; the same files through the Anthropic facade.
import t from "tap";
import { createPartFromUri, createUserContent } from "@google/genai";
import Anthropic from "@anthropic-ai/sdk";
import { ADMIN_KEY, ONE_ATTEMPT, startServer, testChannel, type TestServer } from "../../helpers/app.js";
import { fixture, startFakeUpstream } from "../../fixtures/fake-upstream.js";
import { MODEL, SDKS, apiError } from "./sdks.js";
import { callInit } from "../../core/call/harness.js";

const NOTES = "The sky is green here.";
const PDF = Buffer.from("%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n");
const textOf = (r: { candidates?: { content?: { parts?: { text?: string }[] } }[] }) => (r.candidates?.[0]?.content?.parts ?? []).map((p) => p.text ?? "").join("");

let clock = Date.UTC(2026, 10, 27, 12);
let server: TestServer;
t.before(async () => {
  server = await startServer({ now: () => clock, config: { fileMaxBytes: 12 * 1024 * 1024 } });
});
t.teardown(() => server.close());

for (const sdk of SDKS) {
  t.test(sdk.name, async (t) => {
    const ai = sdk.client(server.baseUrl, ADMIN_KEY);

    t.test("upload, get, list, generate with it, delete", async (t) => {
      clock += 1000;
      const up = await ai.files.upload({ file: new Blob([NOTES], { type: "text/plain" }), config: { displayName: "notes.txt" } });
      t.match(up.name, /^files\/file_[0-9a-f]{32}$/);
      t.equal(up.displayName, "notes.txt");
      t.equal(up.mimeType, "text/plain");
      t.equal(up.sizeBytes, String(NOTES.length));
      t.equal(up.state, "ACTIVE");
      t.equal(up.source, "UPLOADED");
      t.equal(Date.parse(up.createTime!), clock);
      t.equal(Date.parse(up.expirationTime!) - clock, 48 * 3600_000, "kept 48 hours, as on Google's API");
      t.equal(up.uri, `${server.baseUrl}/${sdk.version}/${up.name}`);

      const got = await ai.files.get({ name: up.name! });
      t.same(got, up, "get answers what the upload did");
      const pager = await ai.files.list({ config: { pageSize: 50 } });
      t.ok(
        pager.page.some((f) => f.name === up.name),
        "listed",
      );

      const res = await ai.models.generateContent({ model: MODEL, contents: createUserContent([createPartFromUri(up.uri!, up.mimeType!), "summarise the notes"]) });
      t.equal(textOf(res), "You said: summarise the notes");
      const byName = await ai.models.generateContent({ model: MODEL, contents: [{ role: "user", parts: [{ fileData: { fileUri: up.name!, mimeType: "text/plain" } }, { text: "again" }] }] });
      t.equal(textOf(byName), "You said: again", "the file's name works as its URI");
      const counted = await ai.models.countTokens({ model: MODEL, contents: createUserContent([createPartFromUri(up.uri!, up.mimeType!), "summarise the notes"]) });
      const plain = await ai.models.countTokens({ model: MODEL, contents: "summarise the notes" });
      t.ok(counted.totalTokens! > plain.totalTokens! + 200, "the file counts as media");

      await ai.files.delete({ name: up.name! });
      const gone = await apiError(ai.files.get({ name: up.name! }));
      t.equal(gone.status, 404);
      const after = await apiError(ai.models.generateContent({ model: MODEL, contents: createUserContent([createPartFromUri(up.uri!, "text/plain"), "x"]) }));
      t.equal(after.status, 404, "a deleted file named in a request");
      t.match(after.message, /contents\[0\]\.parts\[0\]\.fileData: File not found/, "the error names the part");
    });

    t.test("a file of several chunks", async (t) => {
      // The SDK sends 8 MiB chunks: 9 MiB is two of them, the first held until the second.
      const big = Buffer.alloc(9 * 1024 * 1024, 0x61);
      const up = await ai.files.upload({ file: new Blob([big], { type: "text/plain" }) });
      t.equal(up.sizeBytes, String(big.length));
      const meta = await new Anthropic({ baseURL: server.baseUrl, apiKey: ADMIN_KEY, maxRetries: 0 }).files.retrieveMetadata(up.name!.slice("files/".length));
      t.equal(meta.size_bytes, big.length, "the same file through the Anthropic facade");
      t.equal(meta.filename, "unnamed.txt", "no display name: unnamed, with its type's extension");
    });

    t.test("errors in Google's shape", async (t) => {
      const tooBig = await apiError(ai.files.upload({ file: new Blob([Buffer.alloc(12 * 1024 * 1024 + 1)], { type: "application/pdf" }) }));
      t.equal(tooBig.status, 413, "over fileMaxBytes, refused at the start (PAYLOAD_TOO_LARGE, as the body limit)");
      const noFile = await apiError(ai.files.get({ name: "files/file_" + "0".repeat(32) }));
      t.equal(noFile.status, 404);
      const foreign = await apiError(ai.models.generateContent({ model: MODEL, contents: createUserContent([createPartFromUri("gs://bucket/a.pdf", "application/pdf"), "x"]) }));
      t.equal(foreign.status, 400, "a URI that is not one of this gateway's files");
      const badKey = await apiError(sdk.client(server.baseUrl, "sk-wrong-0123456789").files.upload({ file: new Blob(["x"], { type: "text/plain" }) }));
      t.ok(badKey.status === 400 || badKey.status === 401 || badKey.status === 403, `a wrong key is refused at the start (${badKey.status})`);
    });
  });
}

t.test("the resumable protocol by hand: query, offsets, cancel, unknown sessions", async (t) => {
  const start = await fetch(`${server.baseUrl}/upload/v1beta/files`, {
    method: "POST",
    headers: {
      "x-goog-api-key": ADMIN_KEY,
      "content-type": "application/json",
      "x-goog-upload-protocol": "resumable",
      "x-goog-upload-command": "start",
      "x-goog-upload-header-content-length": "10",
      "x-goog-upload-header-content-type": "text/plain",
    },
    body: JSON.stringify({ file: { displayName: "ten.txt" } }),
  });
  t.equal(start.status, 200);
  t.equal(start.headers.get("x-goog-upload-status"), "active");
  const url = start.headers.get("x-goog-upload-url")!;
  t.match(url, /\/upload\/v1beta\/files\?upload_id=[0-9a-f]{32}&upload_protocol=resumable$/);
  const send = (command: string, offset: number, body: string, key = ADMIN_KEY) =>
    fetch(url, { method: "POST", headers: { "x-goog-api-key": key, "x-goog-upload-command": command, "x-goog-upload-offset": String(offset) }, body });
  const first = await send("upload", 0, "01234");
  t.same([first.status, first.headers.get("x-goog-upload-status"), first.headers.get("x-goog-upload-size-received")], [200, "active", "5"]);
  const q = await send("query", 0, "");
  t.equal(q.headers.get("x-goog-upload-size-received"), "5");
  t.equal((await send("upload", 3, "xx")).status, 400, "an offset that is not what was received");
  t.equal((await send("upload", 5, "56789", "sk-other-key-0123456789")).status, 404, "another key cannot continue the session");
  const last = await send("upload, finalize", 5, "56789");
  t.equal(last.headers.get("x-goog-upload-status"), "final");
  const body = (await last.json()) as { file: { name: string; displayName: string; sizeBytes: string } };
  t.same([body.file.displayName, body.file.sizeBytes], ["ten.txt", "10"]);
  t.equal((await send("upload", 10, "more")).status, 404, "a finished session is gone");

  const s2 = await fetch(`${server.baseUrl}/upload/v1/files`, {
    method: "POST",
    headers: { "x-goog-api-key": ADMIN_KEY, "x-goog-upload-protocol": "resumable", "x-goog-upload-command": "start" },
    body: JSON.stringify({ file: { mimeType: "text/plain" } }),
  });
  const url2 = s2.headers.get("x-goog-upload-url")!;
  t.match(url2, /\/upload\/v1\/files\?/, "the v1 path (the 3.x SDK's) answers with a v1 URL");
  const cancel = await fetch(url2, { method: "POST", headers: { "x-goog-api-key": ADMIN_KEY, "x-goog-upload-command": "cancel" } });
  t.equal(cancel.headers.get("x-goog-upload-status"), "cancelled");
  const noStart = await fetch(`${server.baseUrl}/upload/v1beta/files`, { method: "POST", headers: { "x-goog-api-key": ADMIN_KEY, "content-type": "application/json" }, body: "{}" });
  const err = (await noStart.json()) as { error: { code: number; status: string } };
  t.same([noStart.status, err.error.status], [400, "INVALID_ARGUMENT"], "a non-resumable upload, in Google's error shape");
  const noKey = await fetch(`${server.baseUrl}/upload/v1beta/files`, { method: "POST", headers: { "x-goog-upload-protocol": "resumable", "x-goog-upload-command": "start" } });
  t.equal(noKey.status, 401);
});

t.test("a Gemini upstream gets the file inline, not its id", async (t) => {
  const gemini = await startFakeUpstream(() => ({ json: fixture("gemini/text.json") }));
  const up = await startServer({ config: { upstream: ONE_ATTEMPT, channels: [testChannel("g", "gemini", gemini.url, ["gemini-x"])] } });
  t.teardown(async () => {
    await up.close();
    await gemini.close();
  });
  const ai = SDKS[0]!.client(up.baseUrl, ADMIN_KEY);
  const file = await ai.files.upload({ file: new Blob([PDF], { type: "application/pdf" }), config: { displayName: "report.pdf" } });
  await ai.models.generateContent({ model: "gemini-x", contents: createUserContent([createPartFromUri(file.uri!, "application/pdf"), "what does it say?"]) });
  const parts = gemini.requests.at(-1)!.body.contents[0].parts;
  t.same(parts[0], { inlineData: { mimeType: "application/pdf", data: PDF.toString("base64") } });
  t.notOk(JSON.stringify(gemini.requests.at(-1)!.body).includes(file.name!), "the gateway's file name does not leave it");
});

t.test("unfinished uploads are bounded: sessions per key, and bytes held in all", async (t) => {
  const Fastify = (await import("fastify")).default;
  const { uploadRoutes } = await import("../../../src/facades/generate-content/files.js");
  const { toWireError } = await import("../../../src/facades/generate-content/errors.js");
  const app = Fastify();
  app.setErrorHandler((err, _req, reply) => {
    const w = toWireError(err, 1 << 20);
    return reply.code(w.httpStatus).send(w.body);
  });
  const uploaded: number[] = [];
  const files = {
    listFiles: async () => ({ files: [], nextPageToken: "", hasMore: false }),
    uploadFile: async (req: { data: Uint8Array }) => {
      uploaded.push(req.data.byteLength);
      return { file: { id: "file_" + "a".repeat(32), filename: "x", mimeType: "text/plain", sizeBytes: BigInt(req.data.byteLength), downloadable: true } };
    },
  };
  const opts = {
    files: files as never,
    maxBytes: 1000,
    publicUrl: "http://gw",
    call: () => callInit(),
    apiKey: (req: { headers: Record<string, unknown> }) => String(req.headers["x-goog-api-key"]),
    now: () => 0,
    heldBytes: 100,
  };
  await app.register(uploadRoutes(opts, "v1beta"), { prefix: "/upload/v1beta/files" });
  t.teardown(() => app.close());
  const start = (key: string) =>
    app.inject({
      method: "POST",
      url: "/upload/v1beta/files",
      headers: { "x-goog-api-key": key, "x-goog-upload-protocol": "resumable", "x-goog-upload-command": "start", "content-type": "application/json" },
      payload: "{}",
    });
  for (let i = 0; i < 8; i++) t.equal((await start("k1")).statusCode, 200, `unfinished upload ${i + 1} of one key`);
  const ninth = await start("k1");
  t.equal(ninth.statusCode, 429, "a ninth unfinished upload of one key waits");
  t.equal((await start("k3")).statusCode, 200, "another key is not held back");
  const k3 = new URL((await start("k3")).headers["x-goog-upload-url"] as string);
  const chunk = (url: URL, key: string, command: string, offset: number, n: number) =>
    app.inject({
      method: "POST",
      url: url.pathname + url.search,
      headers: { "x-goog-api-key": key, "x-goog-upload-command": command, "x-goog-upload-offset": String(offset), "content-type": "application/octet-stream" },
      payload: Buffer.alloc(n),
    });
  t.equal((await chunk(k3, "k3", "upload", 0, 80)).statusCode, 200, "80 bytes held");
  const k3b = new URL((await start("k3")).headers["x-goog-upload-url"] as string);
  t.equal((await chunk(k3b, "k3", "upload", 0, 30)).statusCode, 429, "30 more would pass the 100 held in all: send it again later");
  t.equal((await chunk(k3b, "k3", "upload, finalize", 0, 30)).statusCode, 200, "a last chunk is not held, so it goes through");
  t.equal((await chunk(k3, "k3", "upload, finalize", 80, 10)).statusCode, 200, "the first session finishes");
  t.same(uploaded, [30, 90]);
  t.equal((await chunk(k3b, "k3", "upload", 0, 60)).statusCode, 404, "a finished session is gone");
  const k3c = new URL((await start("k3")).headers["x-goog-upload-url"] as string);
  t.equal((await chunk(k3c, "k3", "upload", 0, 90)).statusCode, 200, "the finished ones' bytes are free again");
});

t.test("a cached content that names a file keeps the file's bytes, not a reference", async (t) => {
  const ai = SDKS[0]!.client(server.baseUrl, ADMIN_KEY);
  const file = await ai.files.upload({ file: new Blob([NOTES], { type: "text/plain" }), config: { displayName: "cached.txt" } });
  const cache = await ai.caches.create({ model: MODEL, config: { contents: [createUserContent([createPartFromUri(file.uri!, "text/plain"), "remember this"])], ttl: "600s" } as never });
  const withFile = await ai.models.countTokens({ model: MODEL, contents: createUserContent([createPartFromUri(file.uri!, "text/plain"), "remember this"]) });
  t.ok(cache.usageMetadata!.totalTokenCount! >= withFile.totalTokens! - 5, "the cache counted the file as media");
  await ai.files.delete({ name: file.name! });
  const res = await ai.models.generateContent({ model: MODEL, contents: "and now?", config: { cachedContent: cache.name! } });
  t.equal(textOf(res), "You said: and now?", "the cache still answers after the file is deleted: it holds the bytes");
  const missing = await apiError(ai.caches.create({ model: MODEL, config: { contents: [createUserContent([createPartFromUri(file.uri!, "text/plain"), "x"])] } as never }));
  t.equal(missing.status, 404, "a cache naming a deleted file is refused");
});
