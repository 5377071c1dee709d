// Refunds for durable tasks: an image-bot submit or a video is charged when it
// is accepted; if the task then fails or is cancelled, the charge goes back to
// the key, and a negative usage record keeps the usage totals true.
import type { KeyStore, UsageStore } from "../../storage/types.js";
import type { StoredTask } from "../tasks/types.js";
import { imageBotCost, videoCost, type PriceTable } from "./prices.js";

export interface RefundDeps {
  prices: PriceTable;
  keys: KeyStore;
  usage: UsageStore;
  now: () => number;
}

/** What the task was charged when it was accepted (same prices as the meter), and how to book it. */
export function taskCharge(prices: PriceTable, task: Pick<StoredTask, "kind" | "payload">): { format: string; model: string; credits: number } | undefined {
  const p = (task.payload ?? {}) as { action?: string; model?: string; duration?: number };
  if (task.kind === "image-bot") return { format: "image-bot", model: p.action ?? "", credits: imageBotCost(prices, p.action ?? "*") };
  if (task.kind === "video") return { format: "video", model: p.model ?? "", credits: videoCost(prices, p.model ?? "", p.duration ?? 0) };
  return undefined;
}

export function taskRefunds(deps: RefundDeps): (task: StoredTask) => void {
  return (task) => {
    if (task.run.status !== "FAILURE" && task.run.status !== "CANCEL") return;
    if (!task.ownerKeyId) return;
    const charge = taskCharge(deps.prices, task);
    if (!charge || !(charge.credits > 0)) return;
    const keyId = task.ownerKeyId;
    void (async () => {
      await deps.keys.adjustSpent(keyId, -charge.credits);
      await deps.usage.record({
        time: deps.now(),
        keyId,
        format: charge.format,
        model: charge.model,
        channel: "",
        inputTokens: 0,
        outputTokens: 0,
        images: 0,
        seconds: 0,
        credits: -charge.credits,
        status: `refund:${task.run.status.toLowerCase()}`,
        latencyMs: 0,
        requestId: task.id,
      });
    })().catch(() => undefined);
  };
}
