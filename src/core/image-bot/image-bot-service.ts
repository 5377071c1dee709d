// ImageBotService: the neutral image-bot core that the /ib facade and RPC callers
// meet. Submissions go through submit.ts; reads, cancel, seeds, uploads,
// watching and the account pool are here.
import { create } from "../proto/create.js";
import type { Principal } from "../call/call.js";
import type { ServiceImpl } from "../call/service.js";
import { AccountMode as AccountModeEnum, AccountSchema, BotType, ImageBotService, type Account, type Task } from "../../../gen/omnigate/imagebot/v1/imagebot_pb.js";
import { Code, coreError, invalidArgument, permissionDenied } from "../errors.js";
import { watch } from "../tasks/events.js";
import { InvalidTransitionError, isTerminal } from "../tasks/types.js";
import { UPDATABLE, type AccountMode, type AccountPatch, type AccountView } from "./accounts.js";
import type { ImageBotDeps } from "./deps.js";
import { checkImages } from "./image-input.js";
import { IMAGE_BOT_KIND, statusFromProto, toProtoTask, type BotTypeName, type ImageBotPayload, type ImageBotTask } from "./model.js";
import { ImageBotSubmitter, type Caller } from "./submit.js";

const MODE_ENUM: Record<AccountMode, AccountModeEnum> = { RELAX: AccountModeEnum.RELAX, FAST: AccountModeEnum.FAST, TURBO: AccountModeEnum.TURBO };
const MODE_NAME = new Map<AccountModeEnum, AccountMode>(Object.entries(MODE_ENUM).map(([k, v]) => [v, k as AccountMode]));

export function toProtoAccount(a: AccountView): Account {
  return create(AccountSchema, {
    id: a.id,
    channelId: a.channelId,
    instanceId: a.instanceId,
    modes: a.modes.map((m) => MODE_ENUM[m]),
    remark: a.remark,
    remix: a.remix,
    remixAutoSubmit: a.remixAutoSubmit,
    enabled: a.enabled,
    concurrency: a.concurrency,
    queueSize: a.queueSize,
    botTypes: a.botTypes.map((b) => (b === "ANIME_BOT" ? BotType.ANIME_BOT : BotType.PRIMARY_BOT)),
    running: a.running,
    queued: a.queued,
    lastError: a.lastError,
    ...(a.lastErrorTime ? { lastErrorTime: { seconds: BigInt(Math.floor(a.lastErrorTime / 1000)), nanos: (a.lastErrorTime % 1000) * 1e6 } } : {}),
    channel: a.channel,
  });
}

/** The patch an UpdateAccount request asks for (fields in update_mask, or every settable field when empty). */
export function accountPatch(acc: Account | undefined, mask: string[]): AccountPatch {
  if (!acc) throw invalidArgument("account is required", "account");
  const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  const fields = mask.length ? mask.map(camel) : [...UPDATABLE];
  const patch: AccountPatch = {};
  for (const f of fields) {
    switch (f) {
      case "channelId":
      case "instanceId":
      case "remark":
        patch[f] = acc[f];
        break;
      case "remix":
      case "remixAutoSubmit":
      case "enabled":
        patch[f] = acc[f];
        break;
      case "concurrency":
        if (acc.concurrency < 1 || acc.concurrency > 100) throw invalidArgument("concurrency must be between 1 and 100", "concurrency");
        patch.concurrency = acc.concurrency;
        break;
      case "queueSize":
        if (acc.queueSize < 0 || acc.queueSize > 10_000) throw invalidArgument("queueSize must be between 0 and 10000", "queueSize");
        patch.queueSize = acc.queueSize;
        break;
      case "modes": {
        const modes = acc.modes.map((m) => MODE_NAME.get(m)).filter((m): m is AccountMode => !!m);
        if (modes.length === 0) throw invalidArgument("modes must name at least one of RELAX, FAST, TURBO", "modes");
        patch.modes = modes;
        break;
      }
      case "botTypes": {
        const types = acc.botTypes
          .map((b): BotTypeName | undefined => (b === BotType.ANIME_BOT ? "ANIME_BOT" : b === BotType.PRIMARY_BOT ? "PRIMARY_BOT" : undefined))
          .filter((b): b is BotTypeName => !!b);
        if (types.length === 0) throw invalidArgument("botTypes must name PRIMARY_BOT or ANIME_BOT", "botTypes");
        patch.botTypes = types;
        break;
      }
      default:
        throw invalidArgument(`${f} cannot be updated`, f);
    }
  }
  return patch;
}

function requireAdmin(p: Principal): void {
  if (!p.admin) throw permissionDenied("only admin keys may see or change accounts", "admin_required");
}

export function imageBotService(deps: ImageBotDeps): ServiceImpl<typeof ImageBotService> {
  const submitter = new ImageBotSubmitter(deps);
  const base = (caller: Caller, t: ImageBotTask) => (deps.settings.publicUrl ?? "").replace(/\/+$/, "") || caller.urlBase || t.payload.urlBase || "";
  const taskOf =
    (caller: Caller) =>
    (t: ImageBotTask): Task =>
      toProtoTask(t, (id) => deps.files.url(id, base(caller, t)), deps.pool.get(t.payload.accountId)?.instanceId ?? "");
  const mine = (t: ImageBotTask, p: Principal) => t.kind === IMAGE_BOT_KIND && (p.admin || t.ownerKeyId === p.keyId);

  return {
    async submitTask(req, call) {
      return { result: await submitter.submitTask(req, call) };
    },
    async submitAction(req, call) {
      return { result: await submitter.submitAction(req, call) };
    },
    async submitModal(req, call) {
      return { result: await submitter.submitModal(req, call) };
    },

    async getTask(req, call) {
      const caller = call;
      return { task: taskOf(caller)(await submitter.owned(req.id, caller)) };
    },

    async listTasks(req, call) {
      const caller = call;
      const { principal } = caller;
      const limit = Math.min(Math.max(req.pageSize || 100, 1), 1000);
      const statuses = req.statuses.map(statusFromProto).filter((s) => s !== undefined);
      let tasks: ImageBotTask[];
      if (req.ids.length > 0) {
        if (req.ids.length > 1000) throw invalidArgument("ids: at most 1000 ids at once", "ids");
        tasks = (await deps.runner.getMany<ImageBotPayload>([...new Set(req.ids)])).filter((t) => mine(t, principal));
      } else {
        const active = statuses.length > 0 && statuses.every((s) => !isTerminal(s));
        tasks = await deps.runner.list<ImageBotPayload>(IMAGE_BOT_KIND, {
          active,
          limit: active ? 100_000 : limit + 1,
          after: req.pageToken || undefined,
          ownerKeyId: principal.admin ? undefined : principal.keyId,
        });
      }
      if (statuses.length > 0) tasks = tasks.filter((t) => statuses.includes(t.run.status));
      // Asked by ids, every one found is returned (up to the 1000 ids allowed); else a page.
      const page = req.ids.length > 0 ? tasks : tasks.slice(0, limit);
      const more = req.ids.length === 0 && tasks.length > limit;
      return { tasks: page.map(taskOf(caller)), nextPageToken: more ? (page.at(-1)?.id ?? "") : "" };
    },

    async cancelTask(req, call) {
      const caller = call;
      const task = await submitter.owned(req.id, caller);
      try {
        return { task: taskOf(caller)(await deps.runner.cancel<ImageBotPayload>(task.id, "cancelled by the client")) };
      } catch (err) {
        if (err instanceof InvalidTransitionError)
          throw coreError(Code.FailedPrecondition, `task ${task.id} has already finished (status ${task.run.status})`, { reason: "task_finished", field: "id" });
        throw err;
      }
    },

    async getImageSeed(req, call) {
      const task = await submitter.owned(req.id, call);
      if (task.run.status !== "SUCCESS" || !task.payload.result) {
        throw coreError(Code.FailedPrecondition, `task ${task.id} has no finished image (status ${task.run.status})`, { reason: "no_image", field: "id" });
      }
      const account = deps.pool.get(task.payload.accountId);
      const upstreamId = task.payload.upstream?.taskId;
      if (account && typeof upstreamId === "string") {
        const provider = deps.provider(account);
        if (provider.seed) return { seed: await provider.seed(upstreamId, call.signal) };
      }
      return { seed: String(task.payload.seed) };
    },

    async uploadImages(req, call) {
      const caller = call;
      if (req.images.length === 0) throw invalidArgument("base64Array needs at least one image", "base64Array");
      if (req.images.length > 10) throw invalidArgument(`base64Array: at most 10 images at once; got ${req.images.length}`, "base64Array");
      const images = await checkImages(req.images, "base64Array");
      const urls: string[] = [];
      const origin = (deps.settings.publicUrl ?? "").replace(/\/+$/, "") || caller.urlBase;
      for (const img of images) urls.push(deps.files.url(await deps.files.put(img.data, { mimeType: img.mimeType, kind: "upload", ownerKeyId: caller.principal.keyId }), origin));
      return { urls };
    },

    async *watchTask(req, call) {
      const caller = call;
      await submitter.owned(req.id, caller);
      const stream = watch<ImageBotPayload>(
        deps.runner.events,
        req.id,
        () => deps.runner.get<ImageBotPayload>(req.id),
        (t) => isTerminal(t.run.status),
        call.signal,
      );
      const toTask = taskOf(caller);
      for await (const t of stream) yield { task: toTask(t) };
    },

    async listAccounts(_req, call) {
      requireAdmin(call.principal);
      return { accounts: deps.pool.list().map(toProtoAccount) };
    },

    async getAccount(req, call) {
      requireAdmin(call.principal);
      const a = deps.pool.get(req.id);
      if (!a) throw coreError(Code.NotFound, `account ${req.id || "(empty)"} does not exist`, { reason: "account_not_found", field: "id" });
      return { account: toProtoAccount(a) };
    },

    async updateAccount(req, call) {
      requireAdmin(call.principal);
      const id = req.account?.id ?? "";
      if (!deps.pool.get(id)) throw coreError(Code.NotFound, `account ${id || "(empty)"} does not exist`, { reason: "account_not_found", field: "id" });
      const updated = await deps.pool.update(id, accountPatch(req.account, req.updateMask));
      return { account: toProtoAccount(updated!) };
    },
  };
}
