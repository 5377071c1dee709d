// The runtime state of the configured upstream channels, shared by every
// routing (chat, images, video, image-bot): whether a channel is enabled
// (initialised from config, changed at runtime through the admin API) and
// the last failure seen on it. Routings ask `isEnabled` each time they
// resolve a model, so a change applies to the next request. Names that are
// not configured channels (the local engine) are always enabled. With a store,
// an admin's enable/disable is kept (it outlives restarts) and `refresh` picks
// up changes other instances made; the last error stays per instance.
import type { ChannelConfig } from "../../config.js";
import type { TaskAccountStore } from "../../storage/types.js";
import { asConnectError, Code, errorDetail } from "../errors.js";

export interface ChannelStatus {
  name: string;
  provider: string;
  /** The base URL without credentials, query or fragment. */
  baseUrl: string;
  models: string[];
  modelMap: Record<string, string>;
  priority: number;
  weight: number;
  enabled: boolean;
  coolingDown: boolean;
  lastError: string;
  /** Epoch ms; 0 when never. */
  lastErrorTime: number;
}

/** What a routing needs: whether a channel may take requests now. */
export interface ChannelGate {
  isEnabled(name: string): boolean;
}

export interface ChannelStates extends ChannelGate {
  /** Enables or disables a channel (kept in the store, when there is one); undefined when no channel has that name. */
  setEnabled(name: string, enabled: boolean): Promise<ChannelStatus | undefined>;
  /** Applies the stored enable/disable changes (made here before a restart, or by another instance). */
  refresh(): Promise<void>;
  /** Remembers a channel's latest failure (ignored for names that are not channels). */
  recordError(name: string, err: unknown): void;
  get(name: string): ChannelStatus | undefined;
  list(): ChannelStatus[];
}

/** A base URL an operator may see: no user, password, query (`?key=`) or fragment. */
export function publicBaseUrl(raw: string): string {
  try {
    const u = new URL(raw);
    u.username = "";
    u.password = "";
    u.search = "";
    u.hash = "";
    return u.toString();
  } catch {
    return "";
  }
}

const FAULT_CODES = new Set([Code.Unavailable, Code.DeadlineExceeded, Code.Internal, Code.Unknown, Code.ResourceExhausted]);

/** Whether an error a provider raised says something about the channel's health (not about the request). */
export function isChannelFault(err: unknown): boolean {
  const e = asConnectError(err);
  if (e.code === Code.Canceled) return false;
  const reason = errorDetail(e)?.reason ?? "";
  return FAULT_CODES.has(e.code) || reason.startsWith("upstream_");
}

/** One line for the admin: the reason and the message, capped. */
function describe(err: unknown): string {
  if (typeof err === "string") return err.slice(0, 500);
  const e = asConnectError(err);
  const reason = errorDetail(e)?.reason;
  return `${reason ? `${reason}: ` : ""}${e.rawMessage}`.slice(0, 500);
}

/** The store kind under which channel overrides are kept (next to task-runner accounts). */
export const CHANNEL_STATE_KIND = "channel";

export function channelStates(configs: ChannelConfig[], opts: { now: () => number; cooling?: (name: string) => boolean; store?: TaskAccountStore }): ChannelStates {
  const state = new Map(configs.map((c) => [c.name, { config: c, enabled: c.enabled, lastError: "", lastErrorTime: 0 }]));
  const view = (name: string): ChannelStatus | undefined => {
    const s = state.get(name);
    if (!s) return undefined;
    const c = s.config;
    return {
      name: c.name,
      provider: c.provider,
      baseUrl: publicBaseUrl(c.baseUrl),
      models: [...c.models],
      modelMap: { ...c.modelMap },
      priority: c.priority,
      weight: c.weight,
      enabled: s.enabled,
      coolingDown: opts.cooling?.(c.name) ?? false,
      lastError: s.lastError,
      lastErrorTime: s.lastErrorTime,
    };
  };
  return {
    isEnabled: (name) => state.get(name)?.enabled ?? true,
    async setEnabled(name, enabled) {
      const s = state.get(name);
      if (!s) return undefined;
      await opts.store?.put({ kind: CHANNEL_STATE_KIND, id: name, data: { enabled }, updateTime: opts.now() });
      s.enabled = enabled;
      return view(name);
    },
    async refresh() {
      if (!opts.store) return;
      for (const r of await opts.store.list(CHANNEL_STATE_KIND)) {
        const s = state.get(r.id);
        const enabled = (r.data as { enabled?: unknown }).enabled;
        if (s && typeof enabled === "boolean") s.enabled = enabled;
      }
    },
    recordError(name, err) {
      const s = state.get(name);
      if (!s) return;
      s.lastError = describe(err);
      s.lastErrorTime = opts.now();
    },
    get: view,
    list: () => [...state.keys()].map((n) => view(n)!),
  };
}
