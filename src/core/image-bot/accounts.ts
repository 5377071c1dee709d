// The image-bot account pool: accounts come from configuration, admin updates
// and last errors are kept in storage, and each account is one queue of the
// task runner (its concurrency and queue size). Choosing an account applies
// the client's accountFilter and prefers a free slot, then the shortest queue.
import type { TaskAccountStore } from "../../storage/types.js";
import type { TaskRunner } from "../tasks/runner.js";
import type { BotTypeName } from "./model.js";

export type AccountMode = "RELAX" | "FAST" | "TURBO";

export interface AccountSettings {
  id: string;
  /** "local" (the built-in engine) or the name of a midjourney channel. */
  channel: string;
  channelId: string;
  instanceId: string;
  modes: AccountMode[];
  remark: string;
  remix: boolean;
  remixAutoSubmit: boolean;
  enabled: boolean;
  concurrency: number;
  queueSize: number;
  botTypes: BotTypeName[];
}

export interface AccountView extends AccountSettings {
  running: number;
  queued: number;
  lastError: string;
  /** Epoch ms, 0 when never. */
  lastErrorTime: number;
}

export interface AccountFilterSpec {
  channelId?: string;
  instanceId?: string;
  modes?: AccountMode[];
  remark?: string;
  remix?: boolean;
  remixAutoConsidered?: boolean;
}

/** Settings an admin may change. */
export const UPDATABLE = ["channelId", "instanceId", "modes", "remark", "remix", "remixAutoSubmit", "enabled", "concurrency", "queueSize", "botTypes"] as const;
export type AccountPatch = Partial<Pick<AccountSettings, (typeof UPDATABLE)[number]>>;

interface Stored {
  patch: AccountPatch;
  lastError?: string;
  lastErrorTime?: number;
}

export type Choice = { account: AccountView; startsNow: boolean } | { unavailable: string };

const KIND = "image-bot";
export const queueOf = (accountId: string) => `image-bot/${accountId}`;

/** Whether an account passes a client's accountFilter. */
export function matchesFilter(a: AccountSettings, f: AccountFilterSpec | undefined): boolean {
  if (!f) return true;
  if (f.channelId && a.channelId !== f.channelId) return false;
  if (f.instanceId && (a.instanceId || a.id) !== f.instanceId) return false;
  if (f.modes && f.modes.length > 0 && !f.modes.some((m) => a.modes.includes(m))) return false;
  if (f.remark && !a.remark.toLowerCase().includes(f.remark.toLowerCase())) return false;
  if (f.remix !== undefined && a.remix !== f.remix) return false;
  if (f.remixAutoConsidered !== undefined && a.remixAutoSubmit !== f.remixAutoConsidered) return false;
  return true;
}

export class AccountPool {
  private readonly accounts = new Map<string, AccountSettings>();
  private readonly state = new Map<string, Stored>();

  constructor(
    private readonly configured: AccountSettings[],
    private readonly store: TaskAccountStore,
    private readonly runner: TaskRunner,
    private readonly now: () => number,
    /** Whether an account's channel takes work now (runtime channel state); "local" always does. */
    readonly channelEnabled: (channel: string) => boolean = () => true,
  ) {}

  /** Applies stored admin changes over the configuration and defines each account's queue. */
  async load(): Promise<void> {
    const stored = new Map((await this.store.list(KIND)).map((r) => [r.id, r.data as Stored]));
    for (const base of this.configured) {
      const s = stored.get(base.id) ?? { patch: {} };
      this.state.set(base.id, s);
      this.apply({ ...base, ...s.patch });
    }
  }

  private apply(a: AccountSettings): void {
    this.accounts.set(a.id, a);
    this.runner.defineQueue(queueOf(a.id), { concurrency: Math.max(1, a.concurrency), queueSize: Math.max(0, a.queueSize) });
  }

  private view(a: AccountSettings): AccountView {
    const load = this.runner.load(queueOf(a.id));
    const s = this.state.get(a.id);
    return { ...a, running: load.running, queued: load.queued, lastError: s?.lastError ?? "", lastErrorTime: s?.lastErrorTime ?? 0 };
  }

  list(): AccountView[] {
    return [...this.accounts.values()].map((a) => this.view(a));
  }

  get(id: string): AccountView | undefined {
    const a = this.accounts.get(id);
    return a && this.view(a);
  }

  async update(id: string, patch: AccountPatch): Promise<AccountView | undefined> {
    const a = this.accounts.get(id);
    if (!a) return undefined;
    const s = this.state.get(id) ?? { patch: {} };
    s.patch = { ...s.patch, ...patch };
    this.state.set(id, s);
    await this.store.put({ kind: KIND, id, data: s, updateTime: this.now() });
    this.apply({ ...a, ...patch });
    return this.get(id);
  }

  async recordError(id: string, message: string): Promise<void> {
    const s = this.state.get(id);
    if (!s) return;
    s.lastError = message;
    s.lastErrorTime = this.now();
    await this.store.put({ kind: KIND, id, data: s, updateTime: s.lastErrorTime }).catch(() => undefined);
  }

  /**
   * Picks an account for a task: enabled, serving the bot type, matching the
   * filter (and `sameChannel` / `channel` when set). A free slot wins, then
   * the shortest waiting line; when every candidate is full, or none matches,
   * the answer says why.
   */
  choose(req: { botType: BotTypeName; filter?: AccountFilterSpec | undefined; channelId?: string | undefined; channel?: string | undefined }): Choice {
    const candidates = [...this.accounts.values()].filter(
      (a) =>
        a.enabled &&
        this.channelEnabled(a.channel) &&
        a.botTypes.includes(req.botType) &&
        matchesFilter(a, req.filter) &&
        (req.channelId === undefined || a.channelId === req.channelId) &&
        (req.channel === undefined || a.channel === req.channel),
    );
    if (candidates.length === 0) return { unavailable: "no enabled account matches the request" };
    let best: { a: AccountSettings; free: boolean; score: number } | undefined;
    for (const a of candidates) {
      const load = this.runner.load(queueOf(a.id));
      if (!this.runner.hasRoom(queueOf(a.id))) continue;
      const free = load.running + load.queued < load.concurrency;
      const score = free ? load.running / load.concurrency : load.queued;
      if (!best || (free && !best.free) || (free === best.free && score < best.score)) best = { a, free, score };
    }
    if (!best) return { unavailable: "every matching account's queue is full" };
    return { account: this.view(best.a), startsNow: best.free };
  }
}
