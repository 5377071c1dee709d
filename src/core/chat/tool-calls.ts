// Calls of custom tools (free-text input, ToolCall.input) on wires that have
// only JSON arguments: the input travels as the object {"input": <text>}, the
// shape an emulated custom tool's one parameter has. Pure.
import type { JsonObject } from "@bufbuild/protobuf";
import type { ToolCall } from "../../../gen/omnigate/chat/v1/chat_pb.js";

/** The one parameter an emulated custom tool has. */
export const CUSTOM_INPUT = "input";

/** A call's arguments as a JSON object: a custom call's input as {"input": text}. */
export function callArguments(c: Pick<ToolCall, "arguments" | "input">): JsonObject {
  return c.input !== undefined ? { [CUSTOM_INPUT]: c.input } : (c.arguments ?? {});
}

/**
 * One streamed fragment of a custom call's input as a fragment of the JSON
 * text {"input": ...}: the first opens the object, and inputJsonClose() ends
 * it. Each fragment is escaped on its own, so the pieces join into valid JSON.
 */
export function inputJsonFragment(fragment: string, first: boolean): string {
  return (first ? `{"${CUSTOM_INPUT}":"` : "") + JSON.stringify(fragment).slice(1, -1);
}

/** The end of the JSON text inputJsonFragment() began; the whole object when no fragment came. */
export function inputJsonClose(sawFragment: boolean): string {
  return sawFragment ? `"}` : `{"${CUSTOM_INPUT}":""}`;
}
