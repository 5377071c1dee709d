// The neutral image core: resolves the model to its profile, applies the
// profile's rules, routes to a provider (an upstream channel or the local
// engine), stores the results in the blob store behind signed URLs (or inlines
// them), and records usage. Facades and RPC callers meet exactly this.
// Generations and edits also run as server streams: the provider's partial
// images as they come, then the same batch.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { create } from "../proto/create.js";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { loadSharp } from "../../lib/sharp.js";
import {
  CreateImageVariationsResponseSchema,
  EditImagesResponseSchema,
  GenerateImagesResponseSchema,
  ImageBatchSchema,
  ImageService,
  StreamEditImagesResponseSchema,
  StreamGenerateImagesResponseSchema,
  type ImageBatch,
} from "../../../gen/omnigate/image/v1/image_pb.js";
import type { CallContext, ImageJob, ImageResult, ImageStreamEvent } from "../ports.js";
import type { BlobStore } from "../../storage/blob/blob-store.js";
import { signFileUrl } from "../../storage/blob/signed-url.js";
import { recordQuietly, type UsageStore } from "../../storage/types.js";
import { formatKey, principalKey, requestIdKey } from "../context.js";
import type { PriceTable } from "../tenancy/prices.js";
import { asConnectError, Code, ConnectError, coreError } from "../errors.js";
import { missingParam } from "./errors.js";
import type { ImageRoute, ImageRouting } from "./image-routing.js";
import { inspectInputs } from "./inspect.js";
import type { ModelResolver } from "./profiles.js";
import { imageRequestCost } from "./price.js";
import { resolveModel, type ImageCall } from "./request-model.js";
import { checkOptions, checkPrompt, checkStream, resolveDimensions } from "./validate.js";

/** One event of a streamed call (the same oneof for generations and edits). */
type StreamEvent = NonNullable<MessageInitShape<typeof StreamGenerateImagesResponseSchema>["event"]>;

/** Facades pass the base of the URL the client used ("https://host:port"), for absolute file URLs. */
export const URL_BASE_HEADER = "omnigate-url-base";
const URL_BASE = /^https?:\/\/[A-Za-z0-9.\-:[\]]+$/;

export interface ImageServiceDeps {
  models: ModelResolver;
  routing: ImageRouting;
  blobs: BlobStore;
  urlSecret: string;
  /** Configured public base URL; wins over the facade's header. */
  publicUrl?: string | undefined;
  urlTtlMs: number;
  usage?: UsageStore | undefined;
  /** Prices, so usage records carry the credits the call cost. */
  prices?: PriceTable | undefined;
  now: () => number;
}

/** Tries the routes in order; only an unavailable upstream moves on to the next one. */
async function runRoutes(routing: ImageRouting, routes: ImageRoute[], job: ImageJob, ctx: HandlerContext): Promise<{ result: ImageResult; route: ImageRoute }> {
  let last: ConnectError | undefined;
  for (const route of routes) {
    try {
      const result = await route.provider.run(job, { signal: ctx.signal, requestId: ctx.values.get(requestIdKey), upstreamModel: route.upstreamModel });
      return { result, route };
    } catch (err) {
      last = asConnectError(err);
      if (!ctx.signal.aborted) routing.report?.(route, last);
      if (last.code !== Code.Unavailable || ctx.signal.aborted) break;
    }
  }
  throw last ?? coreError(Code.Unavailable, "no provider serves this model", { reason: "no_route" });
}

/** A provider's stream, or for a provider without one its run() as a stream with no previews. */
async function* viaRun(provider: ImageRoute["provider"], job: ImageJob, cctx: CallContext): AsyncGenerator<ImageStreamEvent> {
  yield { kind: "result", result: await provider.run(job, cctx) };
}

/**
 * Opens the stream of the first route that answers: a route whose stream
 * fails before its first event as unavailable moves on to the next one, as
 * runRoutes does; once an event came, the stream is that route's.
 */
async function openStream(routing: ImageRouting, routes: ImageRoute[], job: ImageJob, ctx: HandlerContext) {
  let last: ConnectError | undefined;
  for (const route of routes) {
    const cctx = { signal: ctx.signal, requestId: ctx.values.get(requestIdKey), upstreamModel: route.upstreamModel };
    const events = (route.provider.stream?.(job, cctx) ?? viaRun(route.provider, job, cctx))[Symbol.asyncIterator]();
    try {
      return { route, events, first: await events.next() };
    } catch (err) {
      last = asConnectError(err);
      if (!ctx.signal.aborted) routing.report?.(route, last);
      if (last.code !== Code.Unavailable || ctx.signal.aborted) break;
    }
  }
  throw last ?? coreError(Code.Unavailable, "no provider serves this model", { reason: "no_route" });
}

/** Format and dimensions of a produced image; unreadable bytes are the provider's fault. */
async function measure(data: Uint8Array): Promise<{ mimeType: string; width: number; height: number }> {
  const meta = await (
    await loadSharp()
  )(data)
    .metadata()
    .catch(() => undefined);
  if (!meta?.format || !meta.width || !meta.height) {
    throw coreError(Code.Unavailable, "The image provider returned data that is not an image.", { reason: "upstream_bad_response" });
  }
  return { mimeType: `image/${String(meta.format).replace(/^jpg$/, "jpeg")}`, width: meta.width, height: meta.height };
}

export function imageService(deps: ImageServiceDeps): ServiceImpl<typeof ImageService> {
  const urlBase = (ctx: HandlerContext): string => {
    if (deps.publicUrl) return deps.publicUrl.replace(/\/+$/, "");
    const given = ctx.requestHeader.get(URL_BASE_HEADER) ?? "";
    return URL_BASE.test(given) ? given : "";
  };

  const recordUsage = (ctx: HandlerContext, model: string, channel: string, started: number, images: number, batch: ImageBatch | undefined, status: string, credits = 0) => {
    if (!deps.usage) return;
    recordQuietly(deps.usage, {
      time: started,
      keyId: ctx.values.get(principalKey)?.keyId ?? "",
      format: ctx.values.get(formatKey),
      model,
      channel,
      inputTokens: Number(batch?.usage?.inputTokens ?? 0n),
      outputTokens: Number(batch?.usage?.outputTokens ?? 0n),
      images,
      seconds: 0,
      credits,
      status,
      latencyMs: deps.now() - started,
      requestId: ctx.values.get(requestIdKey),
    });
  };

  /** The checked request and the job it becomes. */
  async function prepare(call: ImageCall) {
    const { profile, name } = resolveModel(deps.models, call);
    checkPrompt(call.op, profile, call.prompt);
    const checked = checkOptions(call.op, profile, name, call.options);
    if (call.stream) checkStream(profile, call.stream.partialImages, checked);
    let inputs: Awaited<ReturnType<typeof inspectInputs>> = { images: [] };
    if (call.op !== "generate") {
      const rules = call.op === "edit" ? profile.edit! : profile.variation!;
      inputs = await inspectInputs(call.images, call.op === "edit" ? call.mask : undefined, rules, profile.mask);
    }
    const dims = resolveDimensions(checked.size, profile, call.op, inputs.images[0]);
    const job: ImageJob = {
      operation: call.op,
      profile: profile.id,
      prompt: call.prompt,
      images: inputs.images,
      mask: inputs.mask,
      n: checked.n,
      width: dims.width,
      height: dims.height,
      quality: checked.quality,
      style: checked.style,
      outputFormat: checked.outputFormat,
      background: checked.background,
      outputCompression: checked.outputCompression,
      seed: checked.seed,
      ...(call.stream ? { partialImages: call.stream.partialImages } : {}),
      given: checked.given,
    };
    return { profile, name, checked, dims, job, routes: deps.routing.resolve(name, profile.id) };
  }
  type Prepared = Awaited<ReturnType<typeof prepare>>;

  /** The fields a result echoes, where its model has them. */
  const echoOf = ({ profile, checked }: Prepared, width: number, height: number) => {
    const echo = new Set(profile.echo);
    return {
      outputFormat: echo.has("output_format") ? checked.outputFormat : "",
      size: echo.has("size") ? `${width}x${height}` : "",
      quality: echo.has("quality") ? checked.quality : "",
      background: echo.has("background") ? checked.background : "",
    };
  };

  /** A provider's result as the batch the caller gets (stored behind URLs or inline), its usage recorded. */
  async function toBatch(p: Prepared, result: ImageResult, route: ImageRoute, ctx: HandlerContext, started: number): Promise<ImageBatch> {
    const { profile, name, checked, dims } = p;
    const owner = ctx.values.get(principalKey)?.keyId;
    const base = urlBase(ctx);
    const images = [];
    for (const img of result.images) {
      const { mimeType, width, height } = await measure(img.data);
      const file = { mimeType, width, height, sizeBytes: BigInt(img.data.byteLength) };
      if (checked.responseFormat === "url") {
        const rec = await deps.blobs.put(img.data, { mimeType, kind: "image", ttlMs: deps.urlTtlMs, ...(owner ? { ownerKeyId: owner } : {}) });
        images.push({ revisedPrompt: img.revisedPrompt ?? "", file: { ...file, fileId: rec.id, url: signFileUrl(base, rec.id, rec.expireTime ?? deps.now() + deps.urlTtlMs, deps.urlSecret) } });
      } else {
        images.push({ revisedPrompt: img.revisedPrompt ?? "", file: { ...file, data: img.data } });
      }
    }
    const first = images[0]?.file;
    const batch = create(ImageBatchSchema, {
      created: BigInt(Math.floor(deps.now() / 1000)),
      images,
      ...(profile.reportsUsage && result.usage ? { usage: result.usage } : {}),
      ...echoOf(p, first?.width ?? dims.width, first?.height ?? dims.height),
      model: profile.id,
      channel: route.channel,
    });
    recordUsage(ctx, name, route.channel, started, images.length, batch, "ok", deps.prices ? imageRequestCost(deps.prices, name, checked, batch) : 0);
    return batch;
  }

  async function run(call: ImageCall, ctx: HandlerContext): Promise<ImageBatch> {
    const p = await prepare(call);
    const started = deps.now();
    let outcome: Awaited<ReturnType<typeof runRoutes>>;
    try {
      outcome = await runRoutes(deps.routing, p.routes, p.job, ctx);
    } catch (err) {
      const e = asConnectError(err);
      recordUsage(ctx, p.name, p.routes[0]?.channel ?? "", started, 0, undefined, `error:${e.code}`);
      throw e;
    }
    return toBatch(p, outcome.result, outcome.route, ctx, started);
  }

  /** A streamed call: partial images as the provider makes them, then the batch. */
  async function* runStream(call: ImageCall, ctx: HandlerContext): AsyncGenerator<StreamEvent> {
    const p = await prepare(call);
    const started = deps.now();
    let channel = p.routes[0]?.channel ?? "";
    let events: AsyncIterator<ImageStreamEvent> | undefined;
    // Set once the call's usage is recorded (the batch's, or its failure's).
    let recorded = false;
    try {
      const opened = await openStream(deps.routing, p.routes, p.job, ctx);
      ({ events } = opened);
      channel = opened.route.channel;
      const mimeType = `image/${p.job.outputFormat}`;
      const echo = echoOf(p, p.dims.width, p.dims.height);
      for (let r = opened.first; !r.done; r = await events.next()) {
        const e = r.value;
        if (e.kind === "partial") {
          const file = { mimeType, data: e.data, sizeBytes: BigInt(e.data.byteLength) };
          yield { case: "partialImage", value: { imageIndex: e.imageIndex, partialImageIndex: e.partialIndex, file, created: BigInt(Math.floor(deps.now() / 1000)), ...echo } };
          continue;
        }
        const batch = await toBatch(p, e.result, opened.route, ctx, started);
        recorded = true;
        yield { case: "batch", value: batch };
        return;
      }
      throw coreError(Code.Unavailable, "The image provider's stream ended without a result.", { reason: "upstream_bad_response", metadata: { channel } });
    } catch (err) {
      const e = asConnectError(err);
      if (!recorded) recordUsage(ctx, p.name, channel, started, 0, undefined, `error:${e.code}`);
      recorded = true;
      throw e;
    } finally {
      // The caller stopped reading before the result.
      if (!recorded) recordUsage(ctx, p.name, channel, started, 0, undefined, `error:${Code.Canceled}`);
      if (events?.return) await events.return().catch(() => undefined);
    }
  }

  return {
    async generateImages(req, ctx) {
      const batch = await run({ op: "generate", prompt: req.prompt, options: req.options, images: [] }, ctx);
      return create(GenerateImagesResponseSchema, { batch });
    },
    async editImages(req, ctx) {
      const batch = await run({ op: "edit", prompt: req.prompt, options: req.options, images: req.images, mask: req.mask }, ctx);
      return create(EditImagesResponseSchema, { batch });
    },
    async createImageVariations(req, ctx) {
      if (!req.image) throw missingParam("image");
      const batch = await run({ op: "variation", prompt: "", options: req.options, images: [req.image] }, ctx);
      return create(CreateImageVariationsResponseSchema, { batch });
    },
    async *streamGenerateImages(req, ctx) {
      const call = { op: "generate" as const, prompt: req.prompt, options: req.options, images: [], stream: { partialImages: req.partialImages } };
      for await (const event of runStream(call, ctx)) yield create(StreamGenerateImagesResponseSchema, { event });
    },
    async *streamEditImages(req, ctx) {
      const call = { op: "edit" as const, prompt: req.prompt, options: req.options, images: req.images, mask: req.mask, stream: { partialImages: req.partialImages } };
      for await (const event of runStream(call, ctx)) yield create(StreamEditImagesResponseSchema, { event });
    },
  };
}
