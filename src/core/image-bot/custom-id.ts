// Button customIds in midjourney-proxy's forms (notes/wire-formats.md D.4),
// parsed into what the button does and formatted back. Pure.

export type PanDirection = "left" | "right" | "up" | "down";

export type ButtonAction =
  | { kind: "upsample"; index: number }
  | { kind: "variation"; index: number }
  | { kind: "reroll" }
  | { kind: "low_variation" }
  | { kind: "high_variation" }
  | { kind: "inpaint" }
  /** Zoom Out: 50 = 2x, 75 = 1.5x. */
  | { kind: "outpaint"; zoom: 50 | 75 }
  | { kind: "custom_zoom" }
  | { kind: "pan"; direction: PanDirection }
  | { kind: "upscale_2x"; mode: "subtle" | "creative"; version: string }
  | { kind: "pic_reader"; index: number }
  | { kind: "picread_retry" }
  | { kind: "prompt_analyzer"; index: number };

export interface ParsedCustomId {
  action: ButtonAction;
  /** The job hash the button belongs to (absent in describe/shorten buttons). */
  hash?: string;
}

const HASH = "([\\w-]{1,64})";
const SOLO = "(?:::SOLO)?";

const FORMS: [RegExp, (m: RegExpExecArray) => ButtonAction | undefined][] = [
  [new RegExp(`^MJ::JOB::upsample::([1-4])::${HASH}${SOLO}$`), (m) => ({ kind: "upsample", index: Number(m[1]) })],
  [new RegExp(`^MJ::JOB::variation::([1-4])::${HASH}${SOLO}$`), (m) => ({ kind: "variation", index: Number(m[1]) })],
  [new RegExp(`^MJ::JOB::reroll::0::${HASH}${SOLO}$`), () => ({ kind: "reroll" })],
  [new RegExp(`^MJ::JOB::low_variation::1::${HASH}${SOLO}$`), () => ({ kind: "low_variation" })],
  [new RegExp(`^MJ::JOB::high_variation::1::${HASH}${SOLO}$`), () => ({ kind: "high_variation" })],
  [new RegExp(`^MJ::Inpaint::1::${HASH}${SOLO}$`), () => ({ kind: "inpaint" })],
  [new RegExp(`^MJ::Outpaint::(50|75)::1::${HASH}${SOLO}$`), (m) => ({ kind: "outpaint", zoom: Number(m[1]) as 50 | 75 })],
  [new RegExp(`^MJ::CustomZoom::(?:1::)?${HASH}$`), () => ({ kind: "custom_zoom" })],
  [new RegExp(`^MJ::JOB::pan_(left|right|up|down)::1::${HASH}${SOLO}$`), (m) => ({ kind: "pan", direction: m[1] as PanDirection })],
  [
    new RegExp(`^MJ::JOB::upsample_(v[\\w.]+?)_(2x|4x)(?:_(subtle|creative))?::1::${HASH}${SOLO}$`),
    (m) => ({ kind: "upscale_2x", version: m[1]!, mode: m[3] === "creative" || (m[3] === undefined && m[2] === "4x") ? "creative" : "subtle" }),
  ],
];

const HASHLESS: [RegExp, (m: RegExpExecArray) => ButtonAction][] = [
  [/^MJ::Job::PicReader::([1-4])$/, (m) => ({ kind: "pic_reader", index: Number(m[1]) })],
  [/^MJ::Picread::Retry$/, () => ({ kind: "picread_retry" })],
  [/^MJ::Job::PromptAnalyzer::([1-5])$/, (m) => ({ kind: "prompt_analyzer", index: Number(m[1]) })],
];

/** What a customId does, or undefined when it is not a form the gateway knows. */
export function parseCustomId(customId: string): ParsedCustomId | undefined {
  for (const [re, make] of FORMS) {
    const m = re.exec(customId);
    if (!m) continue;
    const action = make(m);
    if (action) return { action, hash: m[m.length - 1] };
  }
  for (const [re, make] of HASHLESS) {
    const m = re.exec(customId);
    if (m) return { action: make(m) };
  }
  return undefined;
}

/** The customId of a button, in the form midjourney-proxy clients know. */
export function formatCustomId(action: ButtonAction, hash: string): string {
  switch (action.kind) {
    case "upsample":
      return `MJ::JOB::upsample::${action.index}::${hash}`;
    case "variation":
      return `MJ::JOB::variation::${action.index}::${hash}`;
    case "reroll":
      return `MJ::JOB::reroll::0::${hash}::SOLO`;
    case "low_variation":
    case "high_variation":
      return `MJ::JOB::${action.kind}::1::${hash}::SOLO`;
    case "inpaint":
      return `MJ::Inpaint::1::${hash}::SOLO`;
    case "outpaint":
      return `MJ::Outpaint::${action.zoom}::1::${hash}::SOLO`;
    case "custom_zoom":
      return `MJ::CustomZoom::${hash}`;
    case "pan":
      return `MJ::JOB::pan_${action.direction}::1::${hash}::SOLO`;
    case "upscale_2x":
      return `MJ::JOB::upsample_${action.version}_2x_${action.mode}::1::${hash}::SOLO`;
    case "pic_reader":
      return `MJ::Job::PicReader::${action.index}`;
    case "picread_retry":
      return "MJ::Picread::Retry";
    case "prompt_analyzer":
      return `MJ::Job::PromptAnalyzer::${action.index}`;
  }
}

/** The same button with another job hash (relays map upstream buttons onto the gateway's own). */
export function rehash(customId: string, hash: string): string | undefined {
  const p = parseCustomId(customId);
  return p ? formatCustomId(p.action, hash) : undefined;
}
