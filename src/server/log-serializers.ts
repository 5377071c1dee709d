// How errors appear in the log. pino's standard serializer copies every
// enumerable property, and a ConnectError's details hold the protobuf
// descriptor of each detail, so one log line of a canceled stream would carry
// kilobytes of schema. A ConnectError is logged as its code, message, reason and
// field, its stack and its cause; anything else as pino logs it.
import { err as stdErr } from "pino-std-serializers";
import { Code, ConnectError } from "@connectrpc/connect";
import { errorDetail } from "../core/errors.js";

export interface LoggedError {
  type: string;
  message: string;
  stack: string;
  [key: string]: unknown;
}

/** Causes followed at most this deep (a cycle of causes ends here). */
const MAX_CAUSES = 5;

export function serializeError(err: Error, depth = 0): LoggedError {
  if (!(err instanceof ConnectError)) return stdErr(err);
  const d = errorDetail(err);
  const cause = err.cause;
  return {
    type: "ConnectError",
    code: Code[err.code] ?? String(err.code),
    message: err.rawMessage,
    ...(d?.reason ? { reason: d.reason } : {}),
    ...(d?.field ? { field: d.field } : {}),
    stack: err.stack ?? "",
    ...(depth >= MAX_CAUSES || cause === undefined ? {} : { cause: cause instanceof Error ? serializeError(cause, depth + 1) : cause }),
  };
}
