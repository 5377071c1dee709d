// A call into the core as every step of the pipeline sees it: who calls, on
// which wire format, under which request id, with which public URL base, and
// the signal that fires when the caller goes away. Edges build a CallInit;
// the pipeline authenticates it into a Call.
import type { RateLimitsRecord } from "../../storage/types.js";

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

/** What an edge knows of a call before it is authenticated. */
export interface CallInit {
  /** The caller's API key as sent (undefined: none). */
  apiKey?: string | undefined;
  /** Instead of a key: the caller a service already authenticated, when it calls another service on its behalf. */
  principal?: Principal | undefined;
  /** The wire format the call came in on ("messages", ..., "core" for remote RPC callers, "trpc"). */
  format: string;
  requestId: string;
  /** The public origin the caller reached the gateway at ("" when unknown), for the URLs answers carry. */
  urlBase: string;
  signal: AbortSignal;
}

/** An authenticated call. */
export interface Call {
  readonly principal: Principal;
  readonly format: string;
  readonly requestId: string;
  readonly urlBase: string;
  readonly signal: AbortSignal;
}

/** The header remote RPC callers name their request id in. */
export const REQUEST_ID_HEADER = "request-id";

/** A public URL base an edge may pass on: a scheme and a host, nothing else. */
export const URL_BASE = /^https?:\/\/[A-Za-z0-9.\-:[\]]+$/;
