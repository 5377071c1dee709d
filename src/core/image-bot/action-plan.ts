// What pressing a button of a finished task starts: the new task's action,
// operation, prompt and whether it waits in MODAL first. Pure.
import type { ImageBotOperation } from "../ports.js";
import type { ParsedCustomId } from "./custom-id.js";
import type { ActionName, ImageBotTask, ModalWait } from "./model.js";

export interface ActionPlan {
  action: ActionName;
  actionDetail?: string;
  operation: ImageBotOperation;
  /** "always": waits in MODAL; "remix": waits when the account has remix on and does not auto-submit. */
  modal: "always" | "remix" | "never";
  modalKind?: ModalWait["kind"];
  prompt: string;
  promptEn: string;
  description: string;
  /** Inputs the new task reuses (describe retry). */
  inputs: string[];
}

export type PlanResult = { plan: ActionPlan } | { refused: string };

const LABELS: Record<string, string> = {
  low_variation: "Vary (Subtle)",
  high_variation: "Vary (Strong)",
  inpaint: "Vary (Region)",
  custom_zoom: "Custom Zoom",
};

export function planAction(parsed: ParsedCustomId, parent: ImageBotTask): PlanResult {
  const p = parent.payload;
  const a = parsed.action;
  const isGrid = p.result?.grid === true;
  const isSingle = p.result !== undefined && !p.result.grid;
  const base = { prompt: p.prompt, promptEn: p.promptEn, inputs: [] as string[] };
  const up = (what: string) => `/up ${parent.id} ${what}`;
  const needGrid = () => ({ refused: `task ${parent.id} has no image grid; this button needs one` });
  const needSingle = () => ({ refused: `task ${parent.id} has no upscaled image; this button needs one` });

  switch (a.kind) {
    case "upsample":
      if (!isGrid) return needGrid();
      return { plan: { ...base, action: "UPSCALE", operation: { kind: "upscale", index: a.index }, modal: "never", description: up(`U${a.index}`) } };
    case "variation":
      if (!isGrid) return needGrid();
      return { plan: { ...base, action: "VARIATION", operation: { kind: "variation", index: a.index }, modal: "remix", modalKind: "remix", description: up(`V${a.index}`) } };
    case "reroll":
      if (!isGrid) return needGrid();
      return { plan: { ...base, action: "REROLL", actionDetail: "REROLL", operation: { kind: "reroll" }, modal: "remix", modalKind: "remix", description: up("R") } };
    case "low_variation":
    case "high_variation":
      if (!isSingle) return needSingle();
      return {
        plan: {
          ...base,
          action: "VARIATION",
          actionDetail: a.kind.toUpperCase(),
          operation: { kind: "vary", strength: a.kind === "low_variation" ? "subtle" : "strong" },
          modal: "remix",
          modalKind: "remix",
          description: up(LABELS[a.kind]!),
        },
      };
    case "inpaint":
      if (!isSingle) return needSingle();
      return { plan: { ...base, action: "INPAINT", actionDetail: "INPAINT", operation: { kind: "inpaint" }, modal: "always", modalKind: "inpaint", description: up(LABELS.inpaint!) } };
    case "outpaint":
      if (!isSingle) return needSingle();
      return {
        plan: {
          ...base,
          action: "ZOOM",
          operation: { kind: "zoom", factor: a.zoom === 50 ? 2 : 1.5 },
          modal: "never",
          description: up(a.zoom === 50 ? "Zoom Out 2x" : "Zoom Out 1.5x"),
        },
      };
    case "custom_zoom":
      if (!isSingle) return needSingle();
      return {
        plan: { ...base, action: "ZOOM", actionDetail: "CUSTOM_ZOOM", operation: { kind: "zoom", factor: 2 }, modal: "always", modalKind: "custom_zoom", description: up(LABELS.custom_zoom!) },
      };
    case "pan":
      if (!isSingle) return needSingle();
      return { plan: { ...base, action: "PAN", operation: { kind: "pan", direction: a.direction }, modal: "remix", modalKind: "remix", description: up(`Pan ${a.direction}`) } };
    case "upscale_2x":
      if (!isSingle || p.operation.kind !== "upscale") return { refused: `task ${parent.id} is not an upscale of a grid image` };
      return {
        plan: {
          ...base,
          action: "UPSCALE",
          actionDetail: `UPSCALE_${a.mode.toUpperCase()}`,
          operation: { kind: "upscale_2x", mode: a.mode },
          modal: "never",
          description: up(`Upscale (${a.mode === "subtle" ? "Subtle" : "Creative"})`),
        },
      };
    case "pic_reader":
    case "prompt_analyzer": {
      const want = a.kind === "pic_reader" ? "DESCRIBE" : "SHORTEN";
      if (p.action !== want) return { refused: `task ${parent.id} is not a ${want} task` };
      const chosen = p.prompts?.[a.index - 1];
      if (!chosen) return { refused: `task ${parent.id} has no prompt ${a.index}` };
      return {
        plan: {
          action: "IMAGINE",
          actionDetail: a.kind === "pic_reader" ? "PIC_READER" : "PROMPT_ANALYZER",
          operation: { kind: "imagine" },
          modal: "always",
          modalKind: a.kind,
          prompt: chosen,
          promptEn: chosen,
          description: `/imagine ${chosen}`,
          inputs: [],
        },
      };
    }
    case "picread_retry":
      if (p.action !== "DESCRIBE") return { refused: `task ${parent.id} is not a DESCRIBE task` };
      return {
        plan: { ...base, action: "DESCRIBE", actionDetail: "PICREAD_RETRY", operation: { kind: "describe" }, modal: "never", description: `/describe ${parent.id} (retry)`, inputs: [...p.inputs] },
      };
  }
}
