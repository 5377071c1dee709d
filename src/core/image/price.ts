// What an image request costs, priced as the service will run it: the model
// it resolves to (named or default), with that model's default size and
// quality applied. Before the call, an "auto" size is priced at the dearest
// size the model can produce for the operation; after it, at the size made.
import type { ImageBatch } from "../../../gen/omnigate/image/v1/image_pb.js";
import { imageCost, type PriceTable } from "../tenancy/prices.js";
import { parseSize, type ModelResolver } from "./profiles.js";
import { resolveModel, type ImageCall } from "./request-model.js";
import { checkOptions, type CheckedOptions } from "./validate.js";

/** The model name the request runs on, named or default (the name given, when the service will refuse it), for scopes. */
export function imageModelName(models: ModelResolver, call: ImageCall): string {
  try {
    return resolveModel(models, call).name;
  } catch {
    return call.options?.model ?? "";
  }
}

/** The most the request can cost; 0 when the service will refuse it (it then costs nothing). */
export function imageRequestEstimate(prices: PriceTable, models: ModelResolver, call: ImageCall): number {
  let name: string;
  let checked: CheckedOptions;
  let sizes: string[];
  try {
    const resolved = resolveModel(models, call);
    name = resolved.name;
    checked = checkOptions(call.op, resolved.profile, name, call.options);
    sizes = parseSize(checked.size) ? [checked.size] : (resolved.profile.sizes[call.op] ?? []).filter((s) => parseSize(s));
  } catch {
    return 0;
  }
  return Math.max(0, ...sizes.map((size) => imageCost(prices, name, size, checked.quality, checked.n)));
}

/** What a served request cost: the images made, at the size made and the quality that applied. */
export function imageRequestCost(prices: PriceTable, model: string, checked: Pick<CheckedOptions, "size" | "quality">, batch: Pick<ImageBatch, "images" | "size">): number {
  return imageCost(prices, model, batch.size || checked.size, checked.quality, batch.images.length);
}

/** The same, from the request and its answer (for the meter, which sees only those). */
export function imageCallCost(prices: PriceTable, models: ModelResolver, call: ImageCall, batch: Pick<ImageBatch, "images" | "size">): number {
  try {
    const { profile, name } = resolveModel(models, call);
    return imageRequestCost(prices, name, checkOptions(call.op, profile, name, call.options), batch);
  } catch {
    return 0;
  }
}
