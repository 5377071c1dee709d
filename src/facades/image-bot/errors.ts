// The one error table of the /ib edge: ConnectError -> HTTP status and the
// envelope {code, description, result: null} of spec 7.2. Client mistakes are
// HTTP 4xx with code 21 (parameter error), an exhausted budget 403 with code
// 25, rate limits 429 and internal faults 500 with code 23.
import { Code, ConnectError } from "@connectrpc/connect";
import { errorDetail, retryAfterSeconds } from "../../core/errors.js";
import type { Envelope } from "./wire.js";

export interface WireError {
  status: number;
  body: Envelope;
  headers: Record<string, string>;
}

export const CODE = { SUBMITTED: 1, PARAMETER_ERROR: 21, QUEUED: 22, SYSTEM_ERROR: 23, ACCOUNT_UNAVAILABLE: 24, INSUFFICIENT_BALANCE: 25 } as const;

export function wireError(status: number, code: number, description: string, properties: Record<string, unknown> = {}, headers: Record<string, string> = {}): WireError {
  return { status, body: { code, description, properties, result: null }, headers };
}

/** An error the facade raises itself (bad JSON, bad base64, missing key). */
export class FacadeError extends Error {
  constructor(readonly wire: WireError) {
    super(wire.body.description);
  }
}

export const badRequest = (description: string, properties: Record<string, unknown> = {}) => new FacadeError(wireError(400, CODE.PARAMETER_ERROR, description, properties));

const STATUS: Partial<Record<Code, number>> = {
  [Code.InvalidArgument]: 400,
  [Code.FailedPrecondition]: 400,
  [Code.OutOfRange]: 400,
  [Code.AlreadyExists]: 400,
  [Code.Unauthenticated]: 401,
  [Code.PermissionDenied]: 403,
  [Code.NotFound]: 404,
  [Code.ResourceExhausted]: 429,
};

export function fromConnectError(err: ConnectError): WireError {
  const d = errorDetail(err);
  const status = STATUS[err.code];
  if (status === undefined) return wireError(500, CODE.SYSTEM_ERROR, "system error: the gateway could not process the request");
  if (d?.reason === "budget_exhausted") return wireError(403, CODE.INSUFFICIENT_BALANCE, `insufficient balance: ${err.rawMessage}`);
  if (err.code === Code.ResourceExhausted) {
    const secs = retryAfterSeconds(err);
    return wireError(429, CODE.SYSTEM_ERROR, err.rawMessage, {}, secs !== undefined ? { "retry-after": String(secs) } : {});
  }
  const properties: Record<string, unknown> = {};
  if (d?.reason === "banned_prompt") {
    properties.bannedWord = d.metadata.bannedWord ?? "";
    properties.promptEn = d.metadata.promptEn ?? "";
  }
  return wireError(status, CODE.PARAMETER_ERROR, err.rawMessage, properties);
}
