// Rule violations of the image domain: InvalidArgument with the offending
// parameter (OpenAI spelling) in ErrorDetail.field and an OpenAI-style code in
// ErrorDetail.reason and metadata.code. Messages follow OpenAI's wording.
import { Code, ConnectError } from "@connectrpc/connect";
import { coreError } from "../errors.js";

export function paramError(param: string | undefined, code: string, message: string): ConnectError {
  return coreError(Code.InvalidArgument, message, { field: param ?? "", reason: code, metadata: { code } });
}

/** "'a'", "'a' and 'b'", "'a', 'b', and 'c'". */
export function quoteList(values: readonly string[]): string {
  const q = values.map((v) => `'${v}'`);
  if (q.length <= 1) return q.join("");
  if (q.length === 2) return `${q[0]} and ${q[1]}`;
  return `${q.slice(0, -1).join(", ")}, and ${q[q.length - 1]}`;
}

export const invalidValue = (param: string, value: string, supported: readonly string[]) =>
  paramError(param, "invalid_value", `Invalid value: '${value}'. Supported values are: ${quoteList(supported)}.`);

export const missingParam = (param: string) => paramError(param, "missing_required_parameter", `Missing required parameter: '${param}'.`);

export const unsupportedParam = (param: string, model: string) => paramError(param, "unsupported_parameter", `Unsupported parameter: '${param}' is not supported with the model '${model}'.`);

export const stringTooLong = (param: string, max: number, got: number) =>
  paramError(param, "string_above_max_length", `Invalid '${param}': string too long. Expected a string with maximum length ${max}, but got a string with length ${got} instead.`);

export const integerAbove = (param: string, max: number, got: number) =>
  paramError(param, "integer_above_max_value", `Invalid '${param}': integer above maximum value. Expected a value <= ${max}, but got ${got} instead.`);

export const integerBelow = (param: string, min: number, got: number) =>
  paramError(param, "integer_below_min_value", `Invalid '${param}': integer below minimum value. Expected a value >= ${min}, but got ${got} instead.`);

export function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(bytes < 1024 * 1024 ? 2 : 1).replace(/\.0+$/, "")} MB`;
}
