// The chat core reads named files into the request: bytes and type in place
// of the id, each file once, the parts without files shared rather than
// copied, and errors that name the part and say what was wrong.
import t from "tap";
import { Readable } from "node:stream";
import { Code, ConnectError } from "@connectrpc/connect";
import { create } from "../../../src/core/proto/create.js";
import { ChatInputSchema, PartSchema, Role, type ChatInput, type Part } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { errorDetail } from "../../../src/core/errors.js";
import { hasFileRefs, resolveFileRefs, type FileResolveDeps } from "../../../src/core/file/resolve.js";
import type { BlobStore } from "../../../src/storage/blob/blob-store.js";
import type { FileRecord, FileStore } from "../../../src/storage/types.js";

const NOW = 1_800_000_000_000;
const id = (n: number) => "file_" + n.toString(16).padStart(32, "0");
const A = { keyId: "key_a", name: "a", admin: false, formats: [], models: [] } as never;
const B = { keyId: "key_b", name: "b", admin: false, formats: [], models: [] } as never;
const ADMIN = { keyId: "key_root", name: "root", admin: true, formats: [], models: [] } as never;

function store(files: Array<FileRecord & { data: Uint8Array }>): FileResolveDeps & { opens: string[] } {
  const byId = new Map(files.map((f) => [f.id, f]));
  const opens: string[] = [];
  const fileStore = { get: async (i: string) => byId.get(i) } as unknown as FileStore;
  const blobs = {
    open: async (i: string) => {
      opens.push(i);
      const f = byId.get(i);
      return f && { record: f, stream: Readable.from([Buffer.from(f.data)]) };
    },
  } as unknown as BlobStore;
  return { files: fileStore, blobs, now: () => NOW, opens };
}

const rec = (n: number, mimeType: string, data: string | Uint8Array, over: Partial<FileRecord> = {}) => ({
  id: id(n),
  mimeType,
  size: 0,
  createTime: NOW - 1000,
  ownerKeyId: "key_a",
  kind: "file",
  data: typeof data === "string" ? new TextEncoder().encode(data) : data,
  ...over,
});

const text = (s: string) => create(PartSchema, { kind: { case: "text", value: { text: s } } });
const fileRef = (n: number) => create(PartSchema, { kind: { case: "media", value: { name: "doc", source: { case: "fileId", value: id(n) } } } });
const toolResult = (content: Part[]) => create(PartSchema, { kind: { case: "toolResult", value: { callId: "toolu_1", name: "t", content } } });
const input = (turns: Part[][], system: Part[] = []): ChatInput =>
  create(ChatInputSchema, { model: "m", system, turns: turns.map((parts, i) => ({ role: i % 2 ? Role.ASSISTANT : Role.USER, parts })) });

async function failure(p: Promise<unknown>): Promise<ConnectError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ConnectError) return err;
    throw err;
  }
  throw new Error("expected a ConnectError");
}

t.test("hasFileRefs looks in the system parts, the turns and tool results", async (t) => {
  t.equal(hasFileRefs(input([[text("hi")]])), false);
  t.equal(hasFileRefs(input([[text("hi"), fileRef(1)]])), true);
  t.equal(hasFileRefs(input([[text("hi")]], [fileRef(1)])), true);
  t.equal(hasFileRefs(input([[text("q")], [text("a")], [toolResult([text("r"), fileRef(1)])]])), true);
});

t.test("bytes and type replace the id; the rest is shared, not copied", async (t) => {
  const pdf = new TextEncoder().encode("%PDF-1.4 body");
  const deps = store([rec(1, "application/pdf", pdf), rec(2, "image/png", new Uint8Array([0x89, 0x50])), rec(3, "text/markdown", "# notes")]);
  const first = [text("no files here")];
  const req = input([first, [text("ok")], [fileRef(1), text("read it"), fileRef(1), toolResult([fileRef(2)])]], [fileRef(3)]);
  const out = await resolveFileRefs(req, deps, A);
  t.equal(out.turns[0], req.turns[0], "a turn without files is the same object");
  t.equal(out.turns[2]!.parts[1], req.turns[2]!.parts[1], "a part that is not a file is the same object");
  const m = out.turns[2]!.parts[0]!.kind;
  t.equal(m.case, "media");
  if (m.case !== "media") return;
  t.equal(m.value.mimeType, "application/pdf");
  t.same(m.value.source, { case: "data", value: Buffer.from(pdf) });
  t.equal(m.value.name, "doc", "the part's other fields stay");
  const tr = out.turns[2]!.parts[3]!.kind;
  t.ok(tr.case === "toolResult" && tr.value.content[0]!.kind.case === "media" && tr.value.content[0]!.kind.value.mimeType === "image/png", "a file inside a tool result");
  const sys = out.system[0]!.kind;
  t.ok(sys.case === "media" && sys.value.mimeType === "text/plain", "a Markdown file is sent as plain text");
  t.same(deps.opens.sort(), [id(1), id(2), id(3)], "each file read once, though named twice");
  const orig = req.turns[2]!.parts[0]!.kind;
  t.ok(orig.case === "media" && orig.value.source.case === "fileId", "the caller's request is left as it was");
});

t.test("errors name the part and the reason", async (t) => {
  const deps = store([
    rec(1, "application/pdf", "%PDF-"),
    rec(2, "application/zip", new Uint8Array([0x50, 0x4b, 3, 4])),
    rec(3, "text/plain", "old", { expireTime: NOW - 1 }),
    rec(4, "image/png", "x", { kind: "video" }),
    rec(5, "text/csv", new Uint8Array([0xc3, 0x28])),
  ]);
  const table: Array<[string, ChatInput, object, Code, string, string]> = [
    ["missing", input([[text("a"), fileRef(9)]]), A, Code.NotFound, "file_not_found", "turns[0].parts[1].source"],
    ["another key's", input([[fileRef(1)]]), B, Code.NotFound, "file_not_found", "turns[0].parts[0].source"],
    ["expired", input([[fileRef(3)]]), A, Code.NotFound, "file_expired", "turns[0].parts[0].source"],
    ["a blob that is not a Files API file", input([[fileRef(4)]]), A, Code.NotFound, "file_not_found", "turns[0].parts[0].source"],
    ["a zip", input([[text("q")], [text("a")], [toolResult([fileRef(2)])]]), A, Code.InvalidArgument, "unsupported_file_type", "turns[2].parts[0].content[0].source"],
    ["text/csv that is not UTF-8", input([[fileRef(5)]]), A, Code.InvalidArgument, "unsupported_file_type", "turns[0].parts[0].source"],
    ["in the system parts", input([[text("q")]], [text("s"), fileRef(9)]), A, Code.NotFound, "file_not_found", "system[1].source"],
  ];
  for (const [name, req, who, code, reason, field] of table) {
    const e = await failure(resolveFileRefs(req, deps, who as never));
    t.equal(e.code, code, `${name}: code`);
    t.equal(errorDetail(e)?.reason, reason, `${name}: reason`);
    t.equal(errorDetail(e)?.field, field, `${name}: field`);
  }
  const ok = await resolveFileRefs(input([[fileRef(1)]]), deps, ADMIN);
  t.equal(ok.turns[0]!.parts[0]!.kind.case, "media", "an admin key may name any key's file");
  const none = await failure(resolveFileRefs(input([[fileRef(1)]]), undefined, A));
  t.equal(errorDetail(none)?.reason, "files_unavailable", "a core without files refuses, not crashes");
});
