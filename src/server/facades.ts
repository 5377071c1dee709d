// The wire-format facades the HTTP listener hosts. Each is a fastify plugin
// that keeps its parsers, hooks and error handler to itself.
import type { FastifyPluginAsync } from "fastify";
import type { AppDeps } from "./deps.js";

export interface FacadeOptions {
  deps: AppDeps;
}

export interface Facade {
  name: string;
  plugin: FastifyPluginAsync<FacadeOptions>;
}

export const facades: Facade[] = [];
