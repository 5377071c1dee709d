// The gateway's create() against the library's, for every message type in gen/:
// no init, an empty init, and inits that fill every field (each oneof case in
// turn, nested messages as plain objects and as messages, bytes as arrays,
// map keys that are "__proto__"). Same values, same prototypes, same key order.
import t from "tap";
import { deepStrictEqual } from "node:assert";
import { create as libraryCreate, createFileRegistry, isMessage, ScalarType, type DescField, type DescFile, type DescMessage } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema, isWrapperDesc, StructSchema, ValueSchema, TimestampSchema, Int64ValueSchema, BytesValueSchema } from "@bufbuild/protobuf/wkt";
import { create } from "../../../src/core/proto/create.js";
import { file_omnigate_admin_v1_admin } from "../../../gen/omnigate/admin/v1/admin_pb.js";
import { file_omnigate_chat_v1_chat } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { file_omnigate_common_v1_common } from "../../../gen/omnigate/common/v1/common_pb.js";
import { file_omnigate_image_v1_image } from "../../../gen/omnigate/image/v1/image_pb.js";
import { file_omnigate_model_v1_model } from "../../../gen/omnigate/model/v1/model_pb.js";
import { file_omnigate_imagebot_v1_imagebot } from "../../../gen/omnigate/imagebot/v1/imagebot_pb.js";
import { file_omnigate_video_v1_video } from "../../../gen/omnigate/video/v1/video_pb.js";
import { file_omnigate_response_v1_response } from "../../../gen/omnigate/response/v1/response_pb.js";

const files: DescFile[] = [
  file_omnigate_admin_v1_admin,
  file_omnigate_chat_v1_chat,
  file_omnigate_common_v1_common,
  file_omnigate_image_v1_image,
  file_omnigate_model_v1_model,
  file_omnigate_imagebot_v1_imagebot,
  file_omnigate_video_v1_video,
  file_omnigate_response_v1_response,
];

function allMessages(): DescMessage[] {
  const out: DescMessage[] = [];
  const add = (m: DescMessage) => {
    out.push(m);
    m.nestedMessages.forEach(add);
  };
  for (const f of files) f.messages.forEach(add);
  return out;
}

function scalarSample(s: ScalarType): unknown {
  switch (s) {
    case ScalarType.STRING:
      return "text";
    case ScalarType.BOOL:
      return true;
    case ScalarType.BYTES:
      return [1, 2, 3];
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return 1.5;
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return 7n;
    default:
      return 7;
  }
}

/** An own "__proto__" key, as JSON.parse would give one. */
function withProtoKey(obj: Record<string, unknown>, value: unknown): Record<string, unknown> {
  Object.defineProperty(obj, "__proto__", { value, writable: true, enumerable: true, configurable: true });
  return obj;
}

/** A plain init for a message value (or, for wrappers and Struct, what the field holds). */
function messageValue(desc: DescMessage, depth: number, asMessage: boolean): unknown {
  if (desc.typeName === "google.protobuf.Struct") return { a: 1, b: ["x", null], c: { d: true } };
  const init = fill(desc, depth + 1, 0);
  return asMessage ? libraryCreate(desc, init as never) : init;
}

function fieldValue(f: DescField, depth: number, variant: number): unknown {
  const asMessage = variant % 2 === 1;
  switch (f.fieldKind) {
    case "scalar":
      return scalarSample(f.scalar);
    case "enum":
      return f.enum.values.at(-1)!.number;
    case "message":
      if (!f.oneof && isWrapperDesc(f.message)) return scalarSample(f.message.fields[0]!.scalar!);
      return messageValue(f.message, depth, asMessage);
    case "list":
      if (f.listKind === "message") return [messageValue(f.message, depth, false), messageValue(f.message, depth, true)];
      if (f.listKind === "enum") return [f.enum.values[0]!.number];
      return [scalarSample(f.scalar), scalarSample(f.scalar)];
    case "map": {
      const v = () => (f.mapKind === "message" ? messageValue(f.message, depth, asMessage) : f.mapKind === "enum" ? f.enum.values[0]!.number : scalarSample(f.scalar));
      return withProtoKey({ a: v(), b: v() }, v());
    }
  }
}

/** An init with every field set; `variant` picks the oneof case and whether nested values are messages already. */
function fill(desc: DescMessage, depth = 0, variant = 0): Record<string, unknown> {
  const init: Record<string, unknown> = {};
  if (depth > 3) return init;
  for (const m of desc.members) {
    if (m.kind === "oneof") {
      const f = m.fields[variant % m.fields.length]!;
      init[m.localName] = { case: f.localName, value: fieldValue(f, depth, variant) };
    } else init[m.localName] = fieldValue(m, depth, variant);
  }
  return init;
}

/** Key order, recursively (deepStrictEqual ignores it). */
function keyOrder(v: unknown): unknown {
  if (v === null || typeof v !== "object" || ArrayBuffer.isView(v)) return null;
  if (Array.isArray(v)) return v.map(keyOrder);
  return Object.keys(v).map((k) => [k, keyOrder((v as Record<string, unknown>)[k])]);
}

function same(t: { pass(m: string): void; fail(m: string, extra: object): void }, ours: unknown, lib: unknown, what: string) {
  try {
    deepStrictEqual(ours, lib);
    deepStrictEqual(keyOrder(ours), keyOrder(lib));
    t.pass(what);
  } catch (err) {
    t.fail(what, { diff: String((err as Error).message).slice(0, 2000) });
  }
}

/**
 * Field shapes gen/ does not have: repeated bytes, a map of bytes, bytes in a
 * oneof, a proto3 optional scalar, and a proto2 message (which goes to the library).
 */
function syntheticFiles(): DescFile[] {
  const T = { DOUBLE: 1, INT64: 3, BOOL: 8, STRING: 9, MESSAGE: 11, BYTES: 12 };
  const L = { OPTIONAL: 1, REPEATED: 3 };
  const proto3 = libraryCreate(FileDescriptorProtoSchema, {
    name: "synthetic3.proto",
    package: "synthetic",
    syntax: "proto3",
    messageType: [
      {
        name: "Shapes",
        field: [
          { name: "blobs", number: 1, label: L.REPEATED, type: T.BYTES, jsonName: "blobs" },
          { name: "blob_map", number: 2, label: L.REPEATED, type: T.MESSAGE, typeName: ".synthetic.Shapes.BlobMapEntry", jsonName: "blobMap" },
          { name: "raw", number: 3, label: L.OPTIONAL, type: T.BYTES, oneofIndex: 0, jsonName: "raw" },
          { name: "label", number: 4, label: L.OPTIONAL, type: T.STRING, oneofIndex: 0, jsonName: "label" },
          { name: "maybe", number: 5, label: L.OPTIONAL, type: T.INT64, oneofIndex: 1, proto3Optional: true, jsonName: "maybe" },
          { name: "self", number: 6, label: L.OPTIONAL, type: T.MESSAGE, typeName: ".synthetic.Shapes", jsonName: "self" },
          { name: "one_blob", number: 7, label: L.OPTIONAL, type: T.BYTES, jsonName: "oneBlob" },
        ],
        oneofDecl: [{ name: "choice" }, { name: "_maybe" }],
        nestedType: [
          {
            name: "BlobMapEntry",
            field: [
              { name: "key", number: 1, label: L.OPTIONAL, type: T.STRING, jsonName: "key" },
              { name: "value", number: 2, label: L.OPTIONAL, type: T.BYTES, jsonName: "value" },
            ],
            options: { mapEntry: true },
          },
        ],
      },
    ],
  });
  const proto2 = libraryCreate(FileDescriptorProtoSchema, {
    name: "synthetic2.proto",
    package: "synthetic2",
    syntax: "proto2",
    messageType: [
      {
        name: "Old",
        field: [
          { name: "n", number: 1, label: L.OPTIONAL, type: T.DOUBLE, defaultValue: "2.5", jsonName: "n" },
          { name: "on", number: 2, label: L.OPTIONAL, type: T.BOOL, jsonName: "on" },
        ],
      },
    ],
  });
  return [createFileRegistry(proto3, () => undefined).getFile("synthetic3.proto")!, createFileRegistry(proto2, () => undefined).getFile("synthetic2.proto")!];
}
files.push(...syntheticFiles());

const messages = allMessages();

t.test("every message type of gen/ is covered", async (t) => {
  t.ok(messages.length > 100, `${messages.length} message types`);
});

t.test("no init and an empty init give the library's zero message, with fresh lists and maps", async (t) => {
  for (const desc of messages) {
    same(t, create(desc), libraryCreate(desc), `${desc.typeName} ()`);
    same(t, create(desc, {}), libraryCreate(desc, {}), `${desc.typeName} ({})`);
    const a = create(desc) as Record<string, unknown>;
    const b = create(desc) as Record<string, unknown>;
    for (const f of desc.fields) if (f.fieldKind === "list" || f.fieldKind === "map") t.not(a[f.localName], b[f.localName], `${desc.typeName}.${f.localName} is fresh`);
  }
});

t.test("full inits give the library's message, for each oneof case", async (t) => {
  for (const desc of messages) {
    const cases = Math.max(2, ...desc.oneofs.map((o) => o.fields.length));
    for (let variant = 0; variant < cases; variant++) {
      const init = fill(desc, 0, variant);
      same(t, create(desc, init as never), libraryCreate(desc, init as never), `${desc.typeName} variant ${variant}`);
    }
  }
});

t.test("the synthetic shapes convert bytes given as arrays, and a proto2 message keeps the library's prototype", async (t) => {
  const shapes = messages.find((m) => m.typeName === "synthetic.Shapes")!;
  const m = create(shapes, { blobs: [[1], new Uint8Array([2])], blobMap: { a: [3] }, choice: { case: "raw", value: [4] }, oneBlob: [5] } as never) as unknown as Record<string, unknown>;
  t.ok((m.blobs as unknown[]).every((b) => b instanceof Uint8Array));
  t.ok((m.blobMap as Record<string, unknown>).a instanceof Uint8Array);
  t.ok((m.choice as { value: unknown }).value instanceof Uint8Array);
  t.ok(m.oneBlob instanceof Uint8Array);
  t.notOk("maybe" in m, "a proto3 optional scalar not given is absent");
  const old = messages.find((m) => m.typeName === "synthetic2.Old")!;
  const o = create(old, { on: true } as never) as unknown as Record<string, unknown>;
  t.equal(o.n, 2.5, "the default comes from the prototype");
  t.notOk(Object.hasOwn(o, "n"));
});

t.test("a message of the type is returned as is, and nested messages are kept, not copied", async (t) => {
  const chat = file_omnigate_chat_v1_chat;
  const part = chat.messages.find((m) => m.name === "Part")!;
  const text = chat.messages.find((m) => m.name === "TextPart")!;
  const existing = libraryCreate(part, { kind: { case: "text", value: { text: "hi" } } } as never);
  t.equal(create(part, existing as never), existing);
  const inner = create(text, { text: "kept" } as never);
  const outer = create(part, { kind: { case: "text", value: inner } } as never) as unknown as { kind: { value: unknown } };
  t.equal(outer.kind.value, inner);
  t.ok(isMessage(outer.kind.value, text));
});

t.test("well-known types: wrappers, Struct, Value and Timestamp behave as in the library", async (t) => {
  for (const [desc, init] of [
    [StructSchema, { fields: { a: { kind: { case: "numberValue", value: 1 } } } }],
    [ValueSchema, { kind: { case: "structValue", value: { fields: {} } } }],
    [TimestampSchema, { seconds: 5n, nanos: 3 }],
    [Int64ValueSchema, { value: 9n }],
    [BytesValueSchema, { value: [1, 2] }],
  ] as [DescMessage, Record<string, unknown>][]) {
    same(t, create(desc, init as never), libraryCreate(desc, init as never), desc.typeName);
  }
});
