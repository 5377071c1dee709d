// Values the core's interceptors put into a call's context.
import { createContextKey, type HandlerContext } from "@connectrpc/connect";
import type { RateLimitsRecord } from "../storage/types.js";
import { unauthenticated } from "./errors.js";

export interface Principal {
  keyId: string;
  name: string;
  admin: boolean;
  /** Wire formats the key may use; empty = all. */
  formats: string[];
  /** Model globs the key may use; empty = all. */
  models: string[];
  limits: RateLimitsRecord;
  /** The key's credit budget (0: unlimited); what is spent is read from storage when it matters. */
  budget: number;
}

export const principalKey = createContextKey<Principal | undefined>(undefined, { description: "authenticated API key" });

/** The call's authenticated key, for services whose every method needs one (the auth interceptor has put it there). */
export function callerOf(ctx: HandlerContext): Principal {
  const p = ctx.values.get(principalKey);
  if (!p) throw unauthenticated("missing API key");
  return p;
}
/**
 * The wire format a call came in on ("messages", "generate-content", ..., or
 * "core" for remote RPC callers). Only the in-process transport sets it, from
 * the facade that translated the call; no header a caller sends can.
 */
export const formatKey = createContextKey<string>("core", { description: "calling wire format" });
export const requestIdKey = createContextKey<string>("", { description: "request id" });

/** Header name facades use to tell the core the original request's id. */
export const REQUEST_ID_HEADER = "request-id";
