// Result URLs an upstream names (images, videos) on hosts other than its own.
// A public upstream is a third party: what it names is fetched only from
// public addresses, so it cannot make the gateway read the private network
// (checked on the literal host, and in the socket's lookup after resolution).
// An upstream on a private address or local name is run in-house and may host
// its results beside it.
import { Agent } from "undici";
import { guardedLookup, isPrivateAddress } from "../../core/tasks/ssrf.js";

export interface ResultFetcher {
  /** The dispatcher for result URLs on other origins. */
  readonly agent: Agent;
  /** Why a result URL may not be fetched, or undefined when it may. */
  problem(url: URL): string | undefined;
}

export function resultFetcher(base: URL, options: Agent.Options = {}): ResultFetcher {
  const inHouse = isPrivateAddress(base.hostname);
  const agent = new Agent({ ...options, connect: { ...(options.connect as object | undefined), ...(inHouse ? {} : { lookup: guardedLookup }) } });
  return {
    agent,
    problem(url) {
      if (url.protocol !== "http:" && url.protocol !== "https:") return "is not an http(s) URL";
      if (url.username || url.password) return "carries credentials";
      if (!inHouse && isPrivateAddress(url.hostname)) return "points to a private or loopback address";
      return undefined;
    },
  };
}
