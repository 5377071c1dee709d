// What a facade may use of the app: the core's transport, the key check its
// headers need before the core is called, limits, and the clock.
import type { Transport } from "@connectrpc/connect";
import type { Config } from "../../config.js";
import type { Authenticator } from "../../core/auth/authenticator.js";

/** A reply the server builds in another format's shape (its bad-URL answers). */
export interface ForeignReply {
  status: number;
  body: unknown;
}

export interface FacadeDeps {
  core: { transport: Transport };
  auth: Authenticator;
  config: Pick<Config, "bodyLimitBytes" | "fileMaxBytes" | "publicUrl" | "images">;
  now: () => number;
}

export interface FacadeOptions {
  deps: FacadeDeps;
  /** OpenAI's 404 for a URL no route serves (a Files call in OpenAI's dialect reaching the Messages facade). */
  openaiUnknownUrl(url: string, requestId: string, method: string): ForeignReply;
}
