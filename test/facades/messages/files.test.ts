// The Files API (/v1/files) through both official Anthropic SDK generations
// (1.x: client.files and client.beta.files; 0.x: client.beta.files), and
// files named in Messages requests: each kind of upstream receives the bytes
// inline, in its own terms. Also a plain @grpc/grpc-js client on FileService.
import t from "tap";
import path from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import Anthropic1, { toFile } from "@anthropic-ai/sdk";
import Anthropic0 from "anthropic-sdk-0";
import { AdminService } from "../../../gen/omnigate/admin/v1/admin_pb.js";
import { ADMIN_KEY, ONE_ATTEMPT, startServer, testChannel, type TestServer } from "../../helpers/app.js";
import { fixture, startFakeUpstream } from "../../fixtures/fake-upstream.js";
import { MODEL, PNG_1X1, textOf } from "./sdks.js";
import { GoogleGenAI } from "@google/genai";

const PDF = Buffer.from("%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n");
const PNG = Buffer.from(PNG_1X1, "base64");
const NOTES = "The sky is green here.";
const V1 = { "anthropic-version": "2023-06-01" };

/** The file operations both SDK generations share, whichever resource they live on. */
interface FilesApi {
  upload(p: { file: unknown; expires_in_seconds?: number }): Promise<Record<string, unknown> & { id: string }>;
  retrieveMetadata(id: string): Promise<Record<string, unknown> & { id: string }>;
  list(p?: Record<string, unknown>): AsyncIterable<{ id: string }> & Promise<{ data: { id: string }[] }>;
  download(id: string): Promise<Response>;
  delete(id: string): Promise<{ id: string; type?: string }>;
}

interface Sdk {
  name: string;
  files(baseURL: string, key: string): FilesApi;
  messages(baseURL: string, key: string): Anthropic1;
  errors: typeof Anthropic1 | typeof Anthropic0;
}

const SDKS: Sdk[] = [
  {
    name: "1.x client.files",
    files: (baseURL, apiKey) => new Anthropic1({ baseURL, apiKey, maxRetries: 0 }).files as unknown as FilesApi,
    messages: (baseURL, apiKey) => new Anthropic1({ baseURL, apiKey, maxRetries: 0 }),
    errors: Anthropic1,
  },
  {
    name: "1.x client.beta.files",
    files: (baseURL, apiKey) => new Anthropic1({ baseURL, apiKey, maxRetries: 0 }).beta.files as unknown as FilesApi,
    messages: (baseURL, apiKey) => new Anthropic1({ baseURL, apiKey, maxRetries: 0 }),
    errors: Anthropic1,
  },
  {
    name: "0.x client.beta.files",
    files: (baseURL, apiKey) => new Anthropic0({ baseURL, apiKey, maxRetries: 0 }).beta.files as unknown as FilesApi,
    messages: (baseURL, apiKey) => new Anthropic0({ baseURL, apiKey, maxRetries: 0 }) as unknown as Anthropic1,
    errors: Anthropic0,
  },
];

let clock = Date.UTC(2026, 10, 27, 12);
let server: TestServer;
t.before(async () => {
  server = await startServer({ grpc: true, now: () => clock, config: { fileMaxBytes: 64 * 1024 } });
});
t.teardown(() => server.close());

async function newKey(name: string): Promise<string> {
  const admin = createClient(AdminService, createConnectTransport({ baseUrl: server.baseUrl, httpVersion: "1.1" }));
  return (await admin.createKey({ key: { name } }, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).secret;
}

async function status(p: Promise<unknown>): Promise<{ status: number; body: { error?: { type?: string; details?: { error_code?: string } } } }> {
  try {
    await p;
  } catch (err) {
    const e = err as { status?: number; error?: unknown };
    return { status: e.status ?? 0, body: (e.error ?? {}) as never };
  }
  throw new Error("expected an error");
}

for (const sdk of SDKS) {
  t.test(sdk.name, async (t) => {
    const files = sdk.files(server.baseUrl, ADMIN_KEY);

    t.test("upload, metadata, download, list, delete", async (t) => {
      clock += 1000;
      const up = await files.upload({ file: await toFile(Buffer.from(NOTES), "notes.txt") });
      t.match(up.id, /^file_[0-9a-f]{32}$/);
      t.same(
        { ...up, id: "-" },
        { id: "-", type: "file", filename: "notes.txt", mime_type: "text/plain", size_bytes: NOTES.length, created_at: new Date(clock).toISOString(), downloadable: true, expires_at: null },
      );
      t.same(await files.retrieveMetadata(up.id), up, "the metadata is what the upload answered");
      const got = await files.download(up.id);
      t.equal(got.headers.get("content-type"), "text/plain");
      t.match(got.headers.get("content-disposition"), /^attachment; filename="notes.txt"/);
      t.equal(await got.text(), NOTES, "the bytes come back");
      const listed = await files.list();
      t.equal(listed.data[0]!.id, up.id, "newest first");
      t.same(await files.delete(up.id), { id: up.id, type: "file_deleted" });
      const gone = await status(files.retrieveMetadata(up.id));
      t.equal(gone.status, 404);
      t.equal(gone.body.error?.type, "not_found_error");
      t.notOk(
        (await files.list()).data.some((f) => f.id === up.id),
        "no longer listed",
      );
    });

    t.test("types come from the bytes, then the name", async (t) => {
      const pdf = await files.upload({ file: await toFile(PDF, "report.bin") });
      t.equal(pdf.mime_type, "application/pdf", "a PDF whatever its name");
      const png = await files.upload({ file: await toFile(PNG, "pixel", { type: "application/octet-stream" }) });
      t.equal(png.mime_type, "image/png");
      const md = await files.upload({ file: await toFile(Buffer.from("# Title\n"), "README.md") });
      t.equal(md.mime_type, "text/markdown");
      t.equal(md.filename, "README.md");
    });

    t.test("paging: the SDK walks every page, newest first", async (t) => {
      const key = await newKey(`pager-${sdk.name}`);
      const mine = sdk.files(server.baseUrl, key);
      const made: string[] = [];
      for (let i = 0; i < 5; i++) {
        clock += 1000;
        made.push((await mine.upload({ file: await toFile(Buffer.from(`file ${i}`), `f${i}.txt`) })).id);
      }
      const seen: string[] = [];
      for await (const f of mine.list({ limit: 2 })) seen.push(f.id);
      t.same(seen, [...made].reverse(), "all five, newest first, across three pages");
      const first = (await mine.list({ limit: 2 })) as unknown as { hasNextPage(): boolean; data: unknown[] };
      t.same([first.data.length, first.hasNextPage()], [2, true], "a first page that says there is more");
      const byIds = await mine.list({ ids: [made[1]!, made[3]!, "file_" + "0".repeat(32)] });
      t.same(
        byIds.data.map((f) => f.id),
        [made[3], made[1]],
        "ids: the visible ones, newest first; unknown ids left out",
      );
      t.same(
        (await sdk.files(server.baseUrl, ADMIN_KEY).list({ ids: [made[0]!] })).data.map((f) => f.id),
        [made[0]],
        "an admin key sees any key's file",
      );
      const other = sdk.files(server.baseUrl, await newKey(`other-${sdk.name}`));
      t.equal((await status(other.retrieveMetadata(made[0]!))).status, 404, "another key's file is not found");
      t.equal((await status(other.download(made[0]!))).status, 404);
      t.equal((await status(other.delete(made[0]!))).status, 404);
      t.same((await other.list()).data, [], "nor listed");
    });

    t.test("expiry: expires_in_seconds, then file_expired", async (t) => {
      const up = await files.upload({ file: await toFile(Buffer.from("short-lived"), "brief.txt"), expires_in_seconds: 3600 });
      t.equal(up.expires_at, new Date(clock + 3600_000).toISOString());
      const tooShort = await status(files.upload({ file: await toFile(Buffer.from("x"), "x.txt"), expires_in_seconds: 60 }));
      t.equal(tooShort.status, 400, "under an hour is refused");
      clock += 3601_000;
      const e = await status(files.retrieveMetadata(up.id));
      t.equal(e.status, 404);
      t.equal(e.body.error?.details?.error_code, "file_expired", "error.details.error_code names the expiry");
      if (sdk.name.startsWith("1.x client.files")) {
        await t.rejects(files.retrieveMetadata(up.id), Anthropic1.FileExpiredError, "the 1.x SDK raises its typed error");
      }
      const msg = await status(
        sdk
          .messages(server.baseUrl, ADMIN_KEY)
          .messages.create({ model: MODEL, max_tokens: 50, messages: [{ role: "user", content: [{ type: "document", source: { type: "file", file_id: up.id } }] }] }),
      );
      t.equal(msg.status, 404, "a message naming it is refused the same way");
      t.equal(msg.body.error?.details?.error_code, "file_expired");
    });

    t.test("a file named in a message (local engine)", async (t) => {
      const client = sdk.messages(server.baseUrl, ADMIN_KEY);
      const doc = await files.upload({ file: await toFile(PDF, "report.pdf") });
      const img = await files.upload({ file: await toFile(PNG, "pixel.png") });
      const messages: Anthropic1.MessageParam[] = [
        {
          role: "user",
          content: [
            { type: "document", source: { type: "file", file_id: doc.id }, title: "report" },
            { type: "image", source: { type: "file", file_id: img.id } },
            { type: "text", text: "describe both" },
          ],
        },
      ];
      const msg = await client.messages.create({ model: MODEL, max_tokens: 100, messages });
      t.equal(textOf(msg), "You said: describe both");
      const plain = await client.messages.countTokens({ model: MODEL, messages: [{ role: "user", content: "describe both" }] });
      const counted = await client.messages.countTokens({ model: MODEL, messages });
      t.ok(counted.input_tokens > plain.input_tokens + 400, "count_tokens reads both files as media");
      t.equal(counted.input_tokens, msg.usage.input_tokens, "and agrees with the answer's usage");
      const stream = client.messages.stream({ model: MODEL, max_tokens: 100, messages });
      t.equal(textOf(await stream.finalMessage()), "You said: describe both", "streamed too");

      const missing = await status(
        client.messages.create({
          model: MODEL,
          max_tokens: 50,
          messages: [
            {
              role: "user",
              content: [
                { type: "document", source: { type: "file", file_id: "file_" + "f".repeat(32) } },
                { type: "text", text: "hi" },
              ],
            },
          ],
        }),
      );
      t.equal(missing.status, 404);
      t.equal(missing.body.error?.type, "not_found_error");
      const zip = await files.upload({ file: await toFile(Buffer.from([0x50, 0x4b, 3, 4, 0, 0]), "a.zip", { type: "application/zip" }) });
      const unreadable = await status(
        client.messages.create({
          model: MODEL,
          max_tokens: 50,
          messages: [
            {
              role: "user",
              content: [
                { type: "document", source: { type: "file", file_id: zip.id } },
                { type: "text", text: "hi" },
              ],
            },
          ],
        }),
      );
      t.equal(unreadable.status, 400);
      t.match((unreadable.body.error as { message?: string }).message, /messages\.0\.content\.0\.source: File file_\w+ is application\/zip/);
    });
  });
}

t.test("errors of the upload itself", async (t) => {
  const form = (parts: Array<[string, string | Blob, string?]>) => {
    const f = new FormData();
    for (const [name, value, filename] of parts) typeof value === "string" ? f.append(name, value) : f.append(name, value, filename);
    return f;
  };
  const post = async (body: FormData | string, headers: Record<string, string> = { "x-api-key": ADMIN_KEY, ...V1 }) => {
    const res = await fetch(`${server.baseUrl}/v1/files`, { method: "POST", headers, body });
    return { status: res.status, body: (await res.json()) as { type: string; error: { type: string; message: string }; request_id?: string } & Record<string, unknown> };
  };
  const blob = (s: string | Buffer, type = "text/plain") => new Blob([s], { type });

  const noFile = await post(form([["expires_in_seconds", "7200"]]));
  t.equal(noFile.status, 400);
  t.same(noFile.body.error, { type: "invalid_request_error", message: "file: Field required" });
  t.equal(noFile.body.type, "error");
  t.match(noFile.body.request_id, /^req_/);
  const extra = await post(
    form([
      ["file", blob("a"), "a.txt"],
      ["purpose", "assistants"],
    ]),
  );
  t.same([extra.status, extra.body.error.message], [400, "purpose: Extra inputs are not permitted"]);
  const twoFiles = await post(
    form([
      ["file", blob("a"), "a.txt"],
      ["file", blob("b"), "b.txt"],
    ]),
  );
  t.same([twoFiles.status, twoFiles.body.error.type], [400, "invalid_request_error"]);
  const notInt = await post(
    form([
      ["file", blob("a"), "a.txt"],
      ["expires_in_seconds", "soon"],
    ]),
  );
  t.equal(notInt.status, 400);
  const tooBig = await post(form([["file", blob(Buffer.alloc(64 * 1024 + 1, 0x61)), "big.txt"]]));
  t.same([tooBig.status, tooBig.body.error.type], [413, "request_too_large"], "over fileMaxBytes: 413");
  const empty = await post(form([["file", blob(""), "empty.txt"]]));
  t.same([empty.status, empty.body.error.type], [400, "invalid_request_error"], "an empty file");
  const json = await post(JSON.stringify({ file: "x" }), { "x-api-key": ADMIN_KEY, ...V1, "content-type": "application/json" });
  t.same([json.status, json.body.error.message], [400, "content-type must be multipart/form-data"]);
  const noKey = await post(form([["file", blob("a"), "a.txt"]]), { ...V1 });
  t.same([noKey.status, noKey.body.error.type], [401, "authentication_error"]);
  const noVersion = await post(form([["file", blob("a"), "a.txt"]]), { "x-api-key": ADMIN_KEY });
  t.same([noVersion.status, noVersion.body.error.message], [400, "anthropic-version: header is required"]);
  const openaiClient = await fetch(`${server.baseUrl}/v1/files?purpose=assistants`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  const openaiBody = (await openaiClient.json()) as { error: { code: string; message: string } };
  t.same(
    [openaiClient.status, openaiBody.error.code, openaiBody.error.message],
    [404, "unknown_url", "Invalid URL (GET /v1/files)"],
    "an OpenAI client (Bearer, no anthropic-version) gets OpenAI's 404 for a path it is not served",
  );
  const badKey = await post(form([["file", blob("a"), "a.txt"]]), { "x-api-key": "sk-wrong-0123456789", ...V1 });
  t.same([badKey.status, badKey.body.error.type], [401, "authentication_error"]);

  const unnamed = await post(form([["file", blob("%PDF-1.4 x", "application/octet-stream"), ""]]));
  t.equal(unnamed.status, 200);
  t.same([unnamed.body.filename, unnamed.body.mime_type], ["unnamed.pdf", "application/pdf"], "a part without a name is 'unnamed' with its type's extension");
  const pathName = await post(form([["file", blob("x"), "../../etc/passwd"]]));
  t.equal(pathName.body.filename, "passwd", "only the last path segment is kept");

  const get = (p: string) =>
    fetch(`${server.baseUrl}${p}`, { headers: { "x-api-key": ADMIN_KEY, ...V1 } }).then(async (r) => ({ status: r.status, body: (await r.json()) as { error: { type: string; message: string } } }));
  t.same((await get("/v1/files/not%20an%20id")).status, 404);
  t.same((await get("/v1/files?limit=0")).status, 400);
  t.same((await get("/v1/files?limit=1001")).status, 400);
  t.same((await get("/v1/files?page=garbage")).status, 400, "a page token we did not make");
  t.same((await get(`/v1/files?ids=${unnamed.body.id}&limit=2`)).status, 400, "ids with limit");
  t.same((await get("/v1/files?after_id=file_" + "0".repeat(32))).status, 400, "after_id of no file");
  t.same((await get("/v1/files/x/y/z")).body.error.type, "not_found_error", "an unknown path, in this format");
});

t.test("after_id and before_id page as the earlier API did", async (t) => {
  const key = await newKey("cursor-pager");
  const h = { "x-api-key": key, ...V1 };
  const made: string[] = [];
  for (let i = 0; i < 5; i++) {
    clock += 1000;
    const f = new FormData();
    f.append("file", new Blob([`n${i}`], { type: "text/plain" }), `n${i}.txt`);
    made.push(((await (await fetch(`${server.baseUrl}/v1/files`, { method: "POST", headers: h, body: f })).json()) as { id: string }).id);
  }
  const list = async (q: string) =>
    (await (await fetch(`${server.baseUrl}/v1/files?${q}`, { headers: h })).json()) as {
      data: { id: string }[];
      has_more: boolean;
      first_id: string | null;
      last_id: string | null;
      next_page: string | null;
    };
  const newest = [...made].reverse();
  const p1 = await list("limit=2");
  t.same(
    p1.data.map((f) => f.id),
    newest.slice(0, 2),
  );
  t.same([p1.has_more, p1.first_id, p1.last_id], [true, newest[0], newest[1]]);
  const p2 = await list(`limit=2&after_id=${p1.last_id}`);
  t.same(
    p2.data.map((f) => f.id),
    newest.slice(2, 4),
    "after_id: the next older page",
  );
  const back = await list(`limit=2&before_id=${p2.first_id}`);
  t.same(
    back.data.map((f) => f.id),
    newest.slice(0, 2),
    "before_id: the page before, newest first",
  );
  t.equal(back.has_more, false, "nothing newer beyond it");
  const back1 = await list(`limit=1&before_id=${newest[2]}`);
  t.same([back1.data.map((f) => f.id), back1.has_more], [[newest[1]], true]);
  t.same((await list("scope_id=sesn_123")).data, [], "no file is in a session scope");
});

t.test("each kind of upstream receives a named file inline", async (t) => {
  const anthropic = await startFakeUpstream(() => ({ json: fixture("anthropic/message-text.json") }));
  const openai = await startFakeUpstream(() => ({ json: fixture("openai/chat-text.json") }));
  const gemini = await startFakeUpstream(() => ({ json: fixture("gemini/text.json") }));
  const up = await startServer({
    config: {
      upstream: ONE_ATTEMPT,
      channels: [testChannel("a", "anthropic", anthropic.url, ["claude-x"]), testChannel("o", "openai", `${openai.url}/v1`, ["gpt-x"]), testChannel("g", "gemini", gemini.url, ["gemini-x"])],
    },
  });
  t.teardown(async () => {
    await up.close();
    await Promise.all([anthropic.close(), openai.close(), gemini.close()]);
  });
  const c = new Anthropic1({ baseURL: up.baseUrl, apiKey: ADMIN_KEY, maxRetries: 0 });
  const pdf = await c.files.upload({ file: await toFile(PDF, "report.pdf") });
  const png = await c.files.upload({ file: await toFile(PNG, "pixel.png") });
  const txt = await c.files.upload({ file: await toFile(Buffer.from(NOTES), "notes.md") });
  const ask = (model: string) =>
    c.messages.create({
      model,
      max_tokens: 100,
      messages: [
        {
          role: "user",
          content: [
            { type: "document", source: { type: "file", file_id: pdf.id }, title: "Report" },
            { type: "image", source: { type: "file", file_id: png.id } },
            { type: "document", source: { type: "file", file_id: txt.id } },
            { type: "text", text: "what do these say?" },
          ],
        },
      ],
    });

  await ask("claude-x");
  const blocks = anthropic.requests[0]!.body.messages[0].content;
  t.same(blocks[0], { type: "document", source: { type: "base64", media_type: "application/pdf", data: PDF.toString("base64") }, title: "Report" }, "Anthropic: a base64 PDF document");
  t.same(blocks[1], { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_1X1 } }, "a base64 image");
  t.same(blocks[2], { type: "document", source: { type: "text", media_type: "text/plain", data: NOTES } }, "a Markdown file as a text document");
  t.notOk(JSON.stringify(anthropic.requests[0]!.body).includes("file_id"), "no file id reaches the upstream");

  await ask("gpt-x");
  const parts = openai.requests[0]!.body.messages[0].content;
  t.same(parts[0], { type: "file", file: { file_data: `data:application/pdf;base64,${PDF.toString("base64")}`, filename: "Report" } }, "OpenAI-compatible: a file part");
  t.same(parts[1], { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_1X1}` } });
  t.same(parts[2], { type: "text", text: NOTES });

  await ask("gemini-x");
  const g = gemini.requests[0]!.body.contents[0].parts;
  t.same(g[0], { inlineData: { mimeType: "application/pdf", data: PDF.toString("base64") } }, "Gemini: inline data");
  t.same(g[1], { inlineData: { mimeType: "image/png", data: PNG_1X1 } });
});

t.test("a plain @grpc/grpc-js client: upload on FileService, name the file in ChatService.Generate", async (t) => {
  const root = path.resolve(import.meta.dirname, "../../..");
  const def = protoLoader.loadSync(["omnigate/file/v1/file.proto", "omnigate/chat/v1/chat.proto"], {
    includeDirs: [path.join(root, "proto")],
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const loaded = grpc.loadPackageDefinition(def) as any;
  const filesSvc = new loaded.omnigate.file.v1.FileService(server.grpcAddress, grpc.credentials.createInsecure());
  const chat = new loaded.omnigate.chat.v1.ChatService(server.grpcAddress, grpc.credentials.createInsecure());
  t.teardown(() => {
    filesSvc.close();
    chat.close();
  });
  const md = new grpc.Metadata();
  md.set("authorization", `Bearer ${ADMIN_KEY}`);
  const unary = <T>(client: Record<string, Function>, method: string, req: object): Promise<T> =>
    new Promise((resolve, reject) => client[method]!(req, md, (err: grpc.ServiceError | null, res: T) => (err ? reject(err) : resolve(res))));
  const up = await unary<{ file: { id: string; mimeType: string; sizeBytes: string; filename: string } }>(filesSvc, "uploadFile", { filename: "n.txt", data: Buffer.from(NOTES) });
  t.same([up.file.mimeType, up.file.sizeBytes, up.file.filename], ["text/plain", String(NOTES.length), "n.txt"]);
  const got = await unary<{ file: { id: string } }>(filesSvc, "getFile", { id: up.file.id });
  t.equal(got.file.id, up.file.id);
  const res = await unary<{ candidates: { parts: { text?: { text: string } }[] }[] }>(chat, "generate", {
    input: { model: MODEL, turns: [{ role: "ROLE_USER", parts: [{ media: { fileId: up.file.id } }, { text: { text: "read it" } }] }] },
  });
  t.equal(res.candidates[0]!.parts.map((p) => p.text?.text ?? "").join(""), "You said: read it");
  await t.rejects(unary(filesSvc, "getFile", { id: "file_" + "1".repeat(32) }), { code: grpc.status.NOT_FOUND });
  await t.rejects(unary(chat, "generate", { input: { model: MODEL, turns: [{ role: "ROLE_USER", parts: [{ media: { fileId: "file_" + "1".repeat(32) } }] }] } }), { code: grpc.status.NOT_FOUND });
});

t.test("a key's storage quota: storage_quota_exceeded, counted per key, freed by deletes and expiry", async (t) => {
  let now = Date.UTC(2026, 10, 27, 12);
  const q = await startServer({ now: () => now, config: { fileQuotaBytes: 100 } });
  t.teardown(() => q.close());
  const c = new Anthropic1({ baseURL: q.baseUrl, apiKey: ADMIN_KEY, maxRetries: 0 });
  const bytes = (n: number) => toFile(Buffer.alloc(n, 0x61), "a.txt");
  const first = await c.files.upload({ file: await bytes(60) });
  const over = await status(c.files.upload({ file: await bytes(41) }));
  t.equal(over.status, 400);
  t.equal(over.body.error?.details?.error_code, "storage_quota_exceeded");
  await t.rejects(c.files.upload({ file: await bytes(41) }), Anthropic1.StorageQuotaExceededError, "the 1.x SDK's typed error");
  t.equal((await c.files.upload({ file: await bytes(40) })).size_bytes, 40, "up to the quota exactly");
  const gemini = await status(new GoogleGenAI({ apiKey: ADMIN_KEY, httpOptions: { baseUrl: q.baseUrl } }).files.upload({ file: new Blob(["x"], { type: "text/plain" }) }));
  t.equal(gemini.status, 400, "Gemini's uploads count against the same quota");
  await c.files.delete(first.id);
  const brief = await c.files.upload({ file: await bytes(60), expires_in_seconds: 3600 });
  t.equal(brief.size_bytes, 60, "a delete frees its bytes");
  now += 3601_000;
  t.equal((await c.files.upload({ file: await bytes(60) })).size_bytes, 60, "an expired file no longer counts");
  const admin = createClient(AdminService, createConnectTransport({ baseUrl: q.baseUrl, httpVersion: "1.1" }));
  const otherKey = (await admin.createKey({ key: { name: "quota-other" } }, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).secret;
  const other = new Anthropic1({ baseURL: q.baseUrl, apiKey: otherKey, maxRetries: 0 });
  t.equal((await other.files.upload({ file: await bytes(100) })).size_bytes, 100, "each key has its own quota");
});
