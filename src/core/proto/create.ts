// create(schema, init): the same messages @bufbuild/protobuf's create() makes,
// made faster for the proto3 messages of this gateway.
//
// The library compiles each message type into a list of field entries and
// runs one shared closure over it. That closure's property loads and stores
// see every message type of the process, so V8 keeps them megamorphic and a
// message costs many times what the same object literal does, on the dozen or
// two messages each way of every chat request. Here each message type gets a
// function of its own, generated once from its descriptor, whose stores are
// named and so stay monomorphic.
//
// The semantics are the library's (2.x): an init that already is a message of
// the type is returned as is; scalar and enum fields with implicit presence
// get their zero value, singular message fields are absent unless given;
// lists and maps are fresh when not given; message values in fields, lists,
// maps and oneofs that are not messages yet are created; bytes given as
// number arrays become Uint8Arrays; wrapper fields (google.protobuf.*Value)
// and google.protobuf.Struct fields keep their plain values. Messages that
// need the library's prototype chain (explicit-presence scalars outside
// proto3) go to the library's create(). test/core/proto/create.test.ts
// compares both for every message type of gen/.
import { create as libraryCreate, isMessage, type DescField, type DescMessage, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import { isWrapperDesc } from "@bufbuild/protobuf/wkt";

type Init = Record<string, unknown> | null | undefined;
type Maker = (init: Init) => Record<string, unknown>;
type Convert = (value: unknown) => unknown;

const makers = new WeakMap<DescMessage, Maker>();

/** A new message of the schema's type (see the top of this file). */
export function create<Desc extends DescMessage>(schema: Desc, init?: MessageInitShape<Desc>): MessageShape<Desc> {
  return makerOf(schema)(init as Init) as MessageShape<Desc>;
}

function makerOf(desc: DescMessage): Maker {
  let m = makers.get(desc);
  if (m === undefined) {
    m = compile(desc);
    makers.set(desc, m);
  }
  return m;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v == "object" && !Array.isArray(v);
const toU8Arr: Convert = (v) => (Array.isArray(v) ? new Uint8Array(v as number[]) : v);
const identity: Convert = (v) => v;

/** Whether the library tracks presence through a prototype chain for this type (never for proto3). */
function needsPrototype(desc: DescMessage): boolean {
  return desc.file.edition !== 999 /* EDITION_PROTO3 */ && desc.fields.some((f) => f.presence !== 2 /* IMPLICIT */ && f.fieldKind !== "message" && !f.oneof);
}

/** How a value for a message-typed field, list item, map value or oneof case is taken; undefined: as is. */
function messageConvert(field: DescField & { message: DescMessage }): Convert | undefined {
  if (field.fieldKind === "message" && !field.oneof && isWrapperDesc(field.message)) {
    return field.message.fields[0]!.fieldKind === "scalar" && field.message.fields[0]!.scalar === 12 /* BYTES */ ? toU8Arr : undefined;
  }
  if (field.message.typeName === "google.protobuf.Struct" && field.parent.typeName !== "google.protobuf.Value") return undefined;
  const desc = field.message;
  let make: Maker | undefined;
  // Resolved on first use: the type can be this very field's parent, still being compiled.
  return (value) => (!isObject(value) || isMessage(value, desc) ? value : (make ??= makerOf(desc))(value));
}

const isBytes = (f: DescField): boolean => "scalar" in f && f.scalar === 12; /* BYTES */

function compile(desc: DescMessage): Maker {
  if (needsPrototype(desc)) return (init) => libraryCreate(desc, init as never) as Record<string, unknown>;
  // The library's zero message gives each implicit-presence scalar its zero value.
  const zero = libraryCreate(desc) as Record<string, unknown>;
  const consts: unknown[] = [];
  const lines: string[] = [];
  const constant = (v: unknown) => `c[${consts.push(v) - 1}]`;
  const key = (name: string) => JSON.stringify(name);
  for (const member of desc.members) {
    const k = key(member.localName);
    const get = `v = init[${k}];`;
    if (member.kind === "oneof") {
      const byCase = new Map<string, Convert>();
      for (const f of member.fields) byCase.set(f.localName, f.fieldKind === "message" ? (messageConvert(f) ?? identity) : isBytes(f) ? toU8Arr : identity);
      const cases = constant(byCase);
      lines.push(`${get} if (v != null && v.case != null && (f = ${cases}.get(v.case)) !== undefined) m[${k}] = { case: v.case, value: f(v.value) }; else m[${k}] = { case: undefined };`);
      continue;
    }
    switch (member.fieldKind) {
      case "message": {
        const conv = messageConvert(member);
        lines.push(`${get} if (v != null) m[${k}] = ${conv ? `${constant(conv)}(v)` : "v"};`);
        break;
      }
      case "list": {
        const conv = member.listKind === "message" ? (messageConvert(member) ?? identity) : isBytes(member) ? toU8Arr : undefined;
        lines.push(conv ? `${get} m[${k}] = Array.isArray(v) ? v.map(${constant(conv)}) : v != null ? v : [];` : `${get} m[${k}] = v != null ? v : [];`);
        break;
      }
      case "map": {
        const conv = member.mapKind === "message" ? (messageConvert(member) ?? identity) : isBytes(member) ? toU8Arr : undefined;
        lines.push(conv ? `${get} m[${k}] = convertMap(v, ${constant(conv)});` : `${get} m[${k}] = v != null ? v : {};`);
        break;
      }
      default: {
        const implicit = member.presence === 2; /* IMPLICIT */
        const value = isBytes(member) ? `${constant(toU8Arr)}(v)` : "v";
        lines.push(`${get} if (v != null) m[${k}] = ${value};${implicit ? ` else m[${k}] = ${constant(zero[member.localName])};` : ""}`);
      }
    }
  }
  const typeName = key(desc.typeName);
  const body = [
    `return function create(init) {`,
    `  if (init != null && init.$typeName === ${typeName}) return init;`,
    `  if (init == null) init = empty;`,
    `  const m = { $typeName: ${typeName} };`,
    `  let v, f;`,
    ...lines.map((l) => "  " + l),
    `  return m;`,
    `};`,
  ].join("\n");
  return new Function("c", "empty", "convertMap", body)(consts, Object.freeze({}), convertMap) as Maker;
}

/** A map field's init: message values (or bytes) converted, "__proto__" kept as an own key. */
function convertMap(v: unknown, conv: Convert): Record<string, unknown> {
  if (!isObject(v)) return (v ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    if (k === "__proto__") Object.defineProperty(out, k, { value: conv(v[k]), writable: true, enumerable: true, configurable: true });
    else out[k] = conv(v[k]);
  }
  return out;
}
