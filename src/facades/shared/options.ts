// What a facade may use of the app: the core's clients, the key check its
// headers need before the core is called, limits, and the clock.
import type { Config } from "../../config.js";
import type { Authenticator } from "../../core/auth/authenticator.js";
import type { CoreClients } from "../../core/routes.js";

/** A reply the server builds in another format's shape (its bad-URL answers). */
export interface ForeignReply {
  status: number;
  body: unknown;
}

export interface FacadeDeps {
  core: { clients: CoreClients };
  auth: Authenticator;
  config: Pick<Config, "bodyLimitBytes" | "fileMaxBytes" | "publicUrl" | "images">;
  /** Key of the opaque blobs the Responses facade hands out (encrypted_content) and takes back. */
  sealSecret: string;
  now: () => number;
}

export interface FacadeOptions {
  deps: FacadeDeps;
  /** OpenAI's 404 for a URL no route serves (a Files call in OpenAI's dialect reaching the Messages facade). */
  openaiUnknownUrl(url: string, requestId: string, method: string): ForeignReply;
}
