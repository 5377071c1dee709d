// Puts the bytes of the files a chat request names (Media with a file_id
// source) into the request, before routing, so that every provider, whatever
// its vendor, gets the file inline. Each file is read once per request; the
// request's other parts are shared, not copied. A file the caller may not see
// is NotFound, one no chat model can read is InvalidArgument, each naming the
// part it came from.
import { isUtf8 } from "node:buffer";
import type { ChatInput, Media, Part, Turn } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import type { BlobStore } from "../../storage/blob/blob-store.js";
import type { FileStore } from "../../storage/types.js";
import type { Principal } from "../call/call.js";
import { invalidArgument } from "../errors.js";
import { CHAT_MEDIA_TYPES } from "./mime.js";
import { fileGone, lookupFile } from "./file-service.js";

export interface FileResolveDeps {
  blobs: BlobStore;
  files: FileStore;
  now: () => number;
}

const isFileRef = (p: Part) => p.kind.case === "media" && p.kind.value.source.case === "fileId";

function partsHaveRefs(parts: readonly Part[]): boolean {
  for (const p of parts) {
    if (isFileRef(p)) return true;
    if (p.kind.case === "toolResult" && partsHaveRefs(p.kind.value.content)) return true;
  }
  return false;
}

/** Whether the request names a file anywhere a media part may be (cheap: one pass, no allocation). */
export function hasFileRefs(input: ChatInput): boolean {
  if (partsHaveRefs(input.system)) return true;
  for (const t of input.turns) if (partsHaveRefs(t.parts)) return true;
  return false;
}

/** Text types a document block reads as plain text (a Markdown or CSV file is text to a model). */
const TEXTUAL = /^(text\/[\w.+-]+|application\/(json|xml|x-ndjson|yaml|x-yaml|csv))$/;

type Loaded = { data: Uint8Array; mimeType: string };

export async function resolveFileRefs(input: ChatInput, deps: FileResolveDeps | undefined, p: Principal): Promise<ChatInput> {
  const loaded = new Map<string, Promise<Loaded>>();
  const now = deps?.now() ?? Date.now();

  const load = (id: string, field: string): Promise<Loaded> => {
    let got = loaded.get(id);
    if (!got) {
      got = (async () => {
        if (!deps) throw invalidArgument("This gateway keeps no files, so a file source cannot be used.", field, "files_unavailable");
        const found = await lookupFile(deps.files, id, p, now);
        if (found.state !== "ok") throw fileGone(id, found.state, field);
        const rec = found.file;
        const blob = await deps.blobs.open(id);
        if (!blob) throw fileGone(id, "missing", field);
        const chunks: Buffer[] = [];
        for await (const c of blob.stream) chunks.push(c as Buffer);
        const data = Buffer.concat(chunks);
        let mimeType = rec.mimeType;
        if (!CHAT_MEDIA_TYPES.has(mimeType) && TEXTUAL.test(mimeType) && isUtf8(data)) mimeType = "text/plain";
        if (!CHAT_MEDIA_TYPES.has(mimeType)) {
          throw invalidArgument(`File ${id} is ${rec.mimeType}, which a message cannot carry: documents are PDF or text, images JPEG, PNG, GIF or WebP.`, field, "unsupported_file_type");
        }
        return { data, mimeType };
      })();
      loaded.set(id, got);
      // Settled by the await below; a rejection here is not an unhandled one.
      got.catch(() => undefined);
    }
    return got;
  };

  const parts = async (list: Part[], path: string): Promise<Part[]> => {
    if (!partsHaveRefs(list)) return list;
    return Promise.all(
      list.map(async (part, i): Promise<Part> => {
        const k = part.kind;
        if (k.case === "media" && k.value.source.case === "fileId") {
          const got = await load(k.value.source.value, `${path}[${i}].source`);
          const media: Media = { ...k.value, mimeType: got.mimeType, source: { case: "data", value: got.data } };
          return { ...part, kind: { case: "media", value: media } };
        }
        if (k.case === "toolResult" && partsHaveRefs(k.value.content)) {
          return { ...part, kind: { case: "toolResult", value: { ...k.value, content: await parts(k.value.content, `${path}[${i}].content`) } } };
        }
        return part;
      }),
    );
  };

  const system = await parts(input.system, "system");
  const turns = await Promise.all(input.turns.map(async (t, i): Promise<Turn> => (partsHaveRefs(t.parts) ? { ...t, parts: await parts(t.parts, `turns[${i}].parts`) } : t)));
  return { ...input, system, turns };
}
