// shapeFault(schema, message): whether a message a provider built can be held
// by the neutral model. Translators copy vendor values into messages, and
// create() does not check types, so an upstream that sends a number where its
// API documents a string would otherwise reach a facade or the meter as a
// TypeError. The core checks each answer and event here, at the provider
// boundary, and refuses a faulty one as the upstream's malformed answer.
//
// Absent values (null or undefined) of fields with implicit presence are set
// to their zero value (an upstream leaving out a field it usually sends); a
// value of another type is a fault, named by its path. Struct fields hold any
// JSON object (what JSON.parse gives is always well-formed).
import { create as libraryCreate, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { malformedAnswer } from "../errors.js";

/**
 * Checks a value; returns undefined when it fits, else what is wrong with it
 * as "path: what", the path relative to the value (empty for the value
 * itself). Paths are built only on the way out of a fault.
 */
type Check = (value: unknown) => string | undefined;

const checkers = new WeakMap<DescMessage, Check>();

/** The first value in the message the neutral model cannot hold, as "path: what", or undefined. */
export function shapeFault(schema: DescMessage, message: unknown): string | undefined {
  const fault = messageCheck(schema)(message);
  return fault?.startsWith(": ") ? schema.name + fault : fault;
}

/** A provider's answer, once checked: a fault throws the upstream's malformed answer, failing that attempt. */
export function checkedAnswer<T>(schema: DescMessage, answer: T): T {
  const fault = shapeFault(schema, answer);
  if (fault) throw malformedAnswer(fault);
  return answer;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
/** A fault inside a member or item, with the member's name or the item's index put before its path. */
const under = (segment: string, fault: string | undefined) => (fault === undefined ? undefined : fault.startsWith(": ") || fault.startsWith("[") ? segment + fault : `${segment}.${fault}`);
const kindOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "an array" : v instanceof Uint8Array ? "bytes" : typeof v === "object" ? "an object" : `a ${typeof v}`);
const wrong = (v: unknown, want: string) => `: ${kindOf(v)} where ${want} belongs`;

/** An integer from `min` to `max`; a number outside is named by its value. */
const integerIn =
  (min: number, max: number, want: string): Check =>
  (v) =>
    Number.isInteger(v) && (v as number) >= min && (v as number) <= max ? undefined : typeof v === "number" ? `: ${v} where ${want} belongs` : wrong(v, "a number");

function scalarCheck(scalar: number, longAsString: boolean): Check {
  switch (scalar) {
    case 9 /* STRING */:
      return (v) => (typeof v === "string" ? undefined : wrong(v, "a string"));
    case 8 /* BOOL */:
      return (v) => (typeof v === "boolean" ? undefined : wrong(v, "a boolean"));
    case 12 /* BYTES */:
      return (v) => (v instanceof Uint8Array ? undefined : wrong(v, "bytes"));
    case 3 /* INT64 */:
    case 4 /* UINT64 */:
    case 6 /* FIXED64 */:
    case 16 /* SFIXED64 */:
    case 18 /* SINT64 */:
      return longAsString ? (v) => (typeof v === "string" ? undefined : wrong(v, "a 64-bit integer string")) : (v) => (typeof v === "bigint" ? undefined : wrong(v, "a bigint"));
    // 32-bit integers as the binary encoder asserts them: a remote client's answer is encoded.
    case 5 /* INT32 */:
    case 15 /* SFIXED32 */:
    case 17 /* SINT32 */:
      return integerIn(-0x80000000, 0x7fffffff, "a 32-bit integer");
    case 7 /* FIXED32 */:
    case 13 /* UINT32 */:
      return integerIn(0, 0xffffffff, "an unsigned 32-bit integer");
    default:
      return (v) => (typeof v === "number" ? undefined : wrong(v, "a number"));
  }
}

const enumCheck: Check = (v) => (typeof v === "number" ? undefined : wrong(v, "an enum number"));
const jsonObjectCheck: Check = (v) => (isObject(v) ? undefined : wrong(v, "a JSON object"));
const jsonArrayCheck: Check = (v) => (Array.isArray(v) ? undefined : wrong(v, "a JSON array"));
const anyJson: Check = () => undefined;

/** How a value of a message-typed field, list item, map value or oneof case is checked. */
function valueOfMessage(field: DescField & { message: DescMessage }): Check {
  const m = field.message;
  if (field.parent.typeName !== "google.protobuf.Value" && field.parent.typeName !== "google.protobuf.ListValue" && field.parent.typeName !== "google.protobuf.Struct") {
    if (m.typeName === "google.protobuf.Struct") return jsonObjectCheck;
    if (m.typeName === "google.protobuf.Value") return anyJson;
    if (m.typeName === "google.protobuf.ListValue") return jsonArrayCheck;
  }
  // Resolved on first use: the type can be this very field's parent, still being compiled.
  let check: Check | undefined;
  return (v) => (check ??= messageCheck(m))(v);
}

function valueCheck(field: DescField): Check {
  if ("message" in field && field.message) return valueOfMessage(field as DescField & { message: DescMessage });
  if ("enum" in field && field.enum) return enumCheck;
  return scalarCheck((field as { scalar: number }).scalar, (field as { longAsString?: boolean }).longAsString === true);
}

function messageCheck(desc: DescMessage): Check {
  let c = checkers.get(desc);
  if (c === undefined) {
    c = compile(desc);
    checkers.set(desc, c);
  }
  return c;
}

/** One member's check against the message holding it; it may set an absent value to its zero. */
type MemberCheck = (m: Record<string, unknown>) => string | undefined;

function compile(desc: DescMessage): Check {
  const zero = libraryCreate(desc) as Record<string, unknown>;
  const members: MemberCheck[] = desc.members.map((member): MemberCheck => {
    const name = member.localName;
    if (member.kind === "oneof") {
      const cases = new Map(member.fields.map((f) => [f.localName, valueCheck(f)]));
      return (m) => {
        const o = m[name];
        if (o == null) {
          m[name] = { case: undefined };
          return undefined;
        }
        if (!isObject(o)) return name + wrong(o, "a oneof");
        const c = o.case;
        if (c === undefined) return undefined;
        const check = typeof c === "string" ? cases.get(c) : undefined;
        if (!check) return `${name}: no such case ${JSON.stringify(c)}`;
        return under(c as string, check(o.value));
      };
    }
    const check = valueCheck(member);
    switch (member.fieldKind) {
      case "list":
        return (m) => {
          const v = m[name];
          if (v == null) {
            m[name] = [];
            return undefined;
          }
          if (!Array.isArray(v)) return name + wrong(v, "a list");
          for (let i = 0; i < v.length; i++) {
            const f = check(v[i]);
            if (f) return under(`${name}[${i}]`, f);
          }
          return undefined;
        };
      case "map":
        return (m) => {
          const v = m[name];
          if (v == null) {
            m[name] = {};
            return undefined;
          }
          if (!isObject(v)) return name + wrong(v, "a map");
          for (const k of Object.keys(v)) {
            const f = check(v[k]);
            if (f) return under(`${name}[${JSON.stringify(k)}]`, f);
          }
          return undefined;
        };
      case "message":
        return (m) => {
          const v = m[name];
          if (v == null) {
            if (v === null) delete m[name];
            return undefined;
          }
          return under(name, check(v));
        };
      default: {
        const implicit = member.presence === 2; /* IMPLICIT */
        const z = zero[name];
        return (m) => {
          const v = m[name];
          if (v == null) {
            if (implicit) m[name] = z;
            else if (v === null) delete m[name];
            return undefined;
          }
          return under(name, check(v));
        };
      }
    }
  });
  return (v) => {
    if (!isObject(v)) return wrong(v, `a ${desc.name}`);
    for (let i = 0; i < members.length; i++) {
      const f = members[i]!(v);
      if (f) return f;
    }
    return undefined;
  };
}
