// Model name -> the providers that can serve it, in the order to try them.
// Today only the local engine; upstream channels with priority, weight,
// retry and fallback plug in here.
import type { ChatProvider } from "../../providers/types.js";
import { globMatch } from "./glob.js";

export interface ChatRoute {
  channel: string;
  provider: ChatProvider;
  upstreamModel: string;
}

export interface ChatRouting {
  /** Candidate routes for a model, best first; empty when nothing serves it. */
  resolve(model: string): ChatRoute[];
}

export function localOnlyRouting(local: ChatProvider, servedGlobs: string[]): ChatRouting {
  return {
    resolve(model) {
      return servedGlobs.some((g) => globMatch(g, model)) ? [{ channel: "local", provider: local, upstreamModel: model }] : [];
    },
  };
}
