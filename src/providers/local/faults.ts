// Fault injection: a `#fault:<kind>` directive in the last user text makes the
// local engine fail the call the way an upstream would, so error paths can be
// tested end to end. Enabled by config.local.faultInjection (default true).
import type { ConnectError } from "@connectrpc/connect";
import { Code, coreError } from "../../core/errors.js";

export const FAULT_KINDS = ["rate_limit", "overloaded", "internal", "timeout", "permission", "midstream"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** The first known fault directive in `text`, if any. */
export function faultDirective(text: string): FaultKind | undefined {
  for (const m of text.matchAll(/#fault:([a-z_]+)/gi)) {
    const kind = m[1]!.toLowerCase();
    if ((FAULT_KINDS as readonly string[]).includes(kind)) return kind as FaultKind;
  }
  return undefined;
}

/** The error a fault produces; `midstream` fails like `overloaded` (streams fail it after the first text delta). */
export function faultError(kind: FaultKind): ConnectError {
  switch (kind) {
    case "rate_limit":
      return coreError(Code.ResourceExhausted, "rate limit exceeded (local engine fault injection)", { reason: "rate_limited", retryAfterMs: 1000 });
    case "overloaded":
    case "midstream":
      return coreError(Code.Unavailable, "the model is overloaded (local engine fault injection)", { reason: "overloaded" });
    case "internal":
      return coreError(Code.Internal, "internal error (local engine fault injection)", { reason: "internal" });
    case "timeout":
      return coreError(Code.DeadlineExceeded, "the model did not answer in time (local engine fault injection)", { reason: "deadline_exceeded" });
    case "permission":
      return coreError(Code.PermissionDenied, "this key may not use the model (local engine fault injection)", { reason: "permission_denied" });
  }
}
