// Builders shared by the local engine tests: neutral inputs, a call context,
// and an ajv instance that checks the string formats the engine produces.
import { create, type JsonObject, type MessageInitShape } from "@bufbuild/protobuf";
import { Ajv } from "ajv";
import { ChatInputSchema, PartSchema, Role, type ChatInput, type Part } from "../../../../gen/omnigate/chat/v1/chat_pb.js";
import type { CallContext } from "../../../../src/core/ports.js";

export const SECRET = "test-secret";

export type InputInit = Omit<Exclude<MessageInitShape<typeof ChatInputSchema>, ChatInput>, "model"> & { model?: string };

export function input(init: InputInit): ChatInput {
  return create(ChatInputSchema, { model: "local-chat", ...init });
}

export const text = (t: string): MessageInitShape<typeof PartSchema> => ({ kind: { case: "text", value: { text: t } } });
export const user = (...parts: Array<string | MessageInitShape<typeof PartSchema>>) => ({ role: Role.USER, parts: parts.map((p) => (typeof p === "string" ? text(p) : p)) });
export const assistant = (...parts: Array<string | MessageInitShape<typeof PartSchema> | Part>) => ({ role: Role.ASSISTANT, parts: parts.map((p) => (typeof p === "string" ? text(p) : p)) });
export const ask = (t: string, more: InputInit = {}) => input({ turns: [user(t)], ...more });

export const fn = (name: string, parameters: JsonObject, description = "") => ({ kind: { case: "function" as const, value: { name, description, parameters } } });
export const codeTool = { kind: { case: "codeExecution" as const, value: {} } };
export const vendorTool = (type: string, name: string) => ({ kind: { case: "vendor" as const, value: { type, name } } });

export function ctx(signal: AbortSignal = new AbortController().signal): CallContext {
  return { signal, requestId: "req_test", upstreamModel: "local-chat" };
}

export function newAjv(): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addFormat("date", /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/);
  ajv.addFormat("date-time", /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i);
  ajv.addFormat("time", /^\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i);
  ajv.addFormat("email", /^[^\s@]+@[^\s@]+\.[^\s@]+$/);
  ajv.addFormat("uri", /^[a-z][a-z0-9+.-]*:[^\s]*$/i);
  ajv.addFormat("uuid", /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i);
  ajv.addFormat("ipv4", /^(\d{1,3}\.){3}\d{1,3}$/);
  ajv.addFormat("ipv6", /^[0-9a-f:]+$/i);
  ajv.addFormat("hostname", /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i);
  ajv.addFormat("duration", /^P(\d+[YMWD])*(T(\d+[HMS])+)?$/);
  return ajv;
}

/** The text of a candidate's text parts. */
export function textOf(parts: Part[]): string {
  return parts.flatMap((p) => (p.kind.case === "text" ? [p.kind.value.text] : [])).join("");
}
