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
export const customTool = (name: string, format?: JsonObject, description = "") => ({ kind: { case: "custom" as const, value: { name, description, ...(format ? { format } : {}) } } });

/** Codex's apply_patch grammar (codex-rs tool_apply_patch.lark). */
export const APPLY_PATCH_GRAMMAR = `start: begin_patch hunk+ end_patch
begin_patch: "*** Begin Patch" LF
end_patch: "*** End Patch" LF?

hunk: add_hunk | delete_hunk | update_hunk
add_hunk: "*** Add File: " filename LF add_line+
delete_hunk: "*** Delete File: " filename LF
update_hunk: "*** Update File: " filename LF change_move? change?

filename: /(.+)/
add_line: "+" /(.*)/ LF -> line

change_move: "*** Move to: " filename LF
change: (change_context | change_line)+ eof_line?
change_context: ("@@" | "@@ " /(.+)/) LF
change_line: ("+" | "-" | " ") /(.*)/ LF
eof_line: "*** End of File" LF

%import common.LF
`;
export const applyPatch = customTool("apply_patch", { type: "grammar", syntax: "lark", definition: APPLY_PATCH_GRAMMAR }, "Use the `apply_patch` tool to edit files.");

/** Codex's exec_command and shell function tools (their parameters as Codex declares them, trimmed). */
export const execCommand = fn("exec_command", {
  type: "object",
  properties: {
    cmd: { type: "string", description: "Shell command to execute." },
    workdir: { type: "string" },
    shell: { type: "string", description: "Shell binary to launch." },
    tty: { type: "boolean" },
    yield_time_ms: { type: "number" },
    max_output_tokens: { type: "number" },
    justification: { type: "string" },
    sandbox_permissions: { type: "string" },
    login: { type: "boolean" },
  },
  required: ["cmd"],
  additionalProperties: false,
});
export const codexShell = fn("shell", {
  type: "object",
  properties: {
    command: { type: "array", items: { type: "string" }, description: "The command to execute" },
    workdir: { type: "string" },
    timeout_ms: { type: "number" },
    with_escalated_permissions: { type: "boolean" },
    justification: { type: "string" },
  },
  required: ["command"],
  additionalProperties: false,
});

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
