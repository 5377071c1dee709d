// The one place where core errors become tRPC errors.
import { Code, ConnectError } from "@connectrpc/connect";
import { TRPCError } from "@trpc/server";

type TrpcCode = TRPCError["code"];

const TABLE: Partial<Record<Code, TrpcCode>> = {
  [Code.InvalidArgument]: "BAD_REQUEST",
  [Code.FailedPrecondition]: "PRECONDITION_FAILED",
  [Code.OutOfRange]: "BAD_REQUEST",
  [Code.Unauthenticated]: "UNAUTHORIZED",
  [Code.PermissionDenied]: "FORBIDDEN",
  [Code.NotFound]: "NOT_FOUND",
  [Code.AlreadyExists]: "CONFLICT",
  [Code.Aborted]: "CONFLICT",
  [Code.ResourceExhausted]: "TOO_MANY_REQUESTS",
  [Code.Canceled]: "CLIENT_CLOSED_REQUEST",
  [Code.DeadlineExceeded]: "TIMEOUT",
  [Code.Unimplemented]: "NOT_IMPLEMENTED",
  [Code.Unavailable]: "SERVICE_UNAVAILABLE",
};

export function toTrpcError(err: unknown): TRPCError {
  if (err instanceof TRPCError) return err;
  if (err instanceof ConnectError) {
    const code = TABLE[err.code] ?? "INTERNAL_SERVER_ERROR";
    return new TRPCError({ code, message: code === "INTERNAL_SERVER_ERROR" ? "internal error" : err.rawMessage, cause: err });
  }
  return new TRPCError({ code: "INTERNAL_SERVER_ERROR", message: "internal error", cause: err });
}
