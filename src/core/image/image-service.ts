// The neutral image core: resolves the model to its profile, applies the
// profile's rules, routes to a provider (an upstream channel or the local
// engine), stores the results in the blob store behind signed URLs (or inlines
// them). Facades and RPC callers meet exactly this; the pipeline settles usage.
// Generations and edits also run as server streams: the provider's partial
// images as they come, then the same batch.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { create } from "../proto/create.js";
import type { Call } from "../call/call.js";
import type { ServiceImpl } from "../call/service.js";
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
import { asConnectError, Code, ConnectError, coreError, tagChannel } from "../errors.js";
import { missingParam } from "./errors.js";
import type { ImageRoute, ImageRouting } from "./image-routing.js";
import { inspectInputs } from "./inspect.js";
import type { ModelResolver } from "./profiles.js";
import { resolveModel, type ImageCall } from "./request-model.js";
import { checkOptions, checkPrompt, checkStream, resolveDimensions } from "./validate.js";

/** One event of a streamed call (the same oneof for generations and edits). */
type StreamEvent = NonNullable<MessageInitShape<typeof StreamGenerateImagesResponseSchema>["event"]>;

export interface ImageServiceDeps {
  models: ModelResolver;
  routing: ImageRouting;
  blobs: BlobStore;
  urlSecret: string;
  /** Configured public base URL; wins over the one the caller used. */
  publicUrl?: string | undefined;
  urlTtlMs: number;
  now: () => number;
}

/** Tries the routes in order; only an unavailable upstream moves on to the next one. */
async function runRoutes(routing: ImageRouting, routes: ImageRoute[], job: ImageJob, call: Call): Promise<{ result: ImageResult; route: ImageRoute }> {
  let last: ConnectError | undefined;
  for (const route of routes) {
    try {
      const result = await route.provider.run(job, { signal: call.signal, requestId: call.requestId, upstreamModel: route.upstreamModel });
      return { result, route };
    } catch (err) {
      last = asConnectError(err);
      if (!call.signal.aborted) routing.report?.(route, last);
      tagChannel(last, route.channel);
      if (last.code !== Code.Unavailable || call.signal.aborted) break;
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
async function openStream(routing: ImageRouting, routes: ImageRoute[], job: ImageJob, call: Call) {
  let last: ConnectError | undefined;
  for (const route of routes) {
    const cctx = { signal: call.signal, requestId: call.requestId, upstreamModel: route.upstreamModel };
    const events = (route.provider.stream?.(job, cctx) ?? viaRun(route.provider, job, cctx))[Symbol.asyncIterator]();
    try {
      return { route, events, first: await events.next() };
    } catch (err) {
      last = asConnectError(err);
      if (!call.signal.aborted) routing.report?.(route, last);
      tagChannel(last, route.channel);
      if (last.code !== Code.Unavailable || call.signal.aborted) break;
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
  const urlBase = (call: Call): string => (deps.publicUrl ? deps.publicUrl.replace(/\/+$/, "") : call.urlBase);

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

  /** A provider's result as the batch the caller gets (stored behind URLs or inline). */
  async function toBatch(p: Prepared, result: ImageResult, route: ImageRoute, call: Call): Promise<ImageBatch> {
    const { profile, checked, dims } = p;
    const owner = call.principal.keyId;
    const base = urlBase(call);
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
    return batch;
  }

  async function run(req: ImageCall, call: Call): Promise<ImageBatch> {
    const p = await prepare(req);
    const outcome = await runRoutes(deps.routing, p.routes, p.job, call);
    return toBatch(p, outcome.result, outcome.route, call);
  }

  /** A streamed call: partial images as the provider makes them, then the batch. */
  async function* runStream(req: ImageCall, call: Call): AsyncGenerator<StreamEvent> {
    const p = await prepare(req);
    const opened = await openStream(deps.routing, p.routes, p.job, call);
    const { events } = opened;
    try {
      const mimeType = `image/${p.job.outputFormat}`;
      const echo = echoOf(p, p.dims.width, p.dims.height);
      for (let r = opened.first; !r.done; r = await events.next()) {
        const e = r.value;
        if (e.kind === "partial") {
          const file = { mimeType, data: e.data, sizeBytes: BigInt(e.data.byteLength) };
          yield { case: "partialImage", value: { imageIndex: e.imageIndex, partialImageIndex: e.partialIndex, file, created: BigInt(Math.floor(deps.now() / 1000)), ...echo } };
          continue;
        }
        yield { case: "batch", value: await toBatch(p, e.result, opened.route, call) };
        return;
      }
      throw coreError(Code.Unavailable, "The image provider's stream ended without a result.", { reason: "upstream_bad_response" });
    } catch (err) {
      throw tagChannel(asConnectError(err), opened.route.channel);
    } finally {
      if (events.return) await events.return().catch(() => undefined);
    }
  }

  return {
    async generateImages(req, call) {
      const batch = await run({ op: "generate", prompt: req.prompt, options: req.options, images: [] }, call);
      return create(GenerateImagesResponseSchema, { batch });
    },
    async editImages(req, call) {
      const batch = await run({ op: "edit", prompt: req.prompt, options: req.options, images: req.images, mask: req.mask }, call);
      return create(EditImagesResponseSchema, { batch });
    },
    async createImageVariations(req, call) {
      if (!req.image) throw missingParam("image");
      const batch = await run({ op: "variation", prompt: "", options: req.options, images: [req.image] }, call);
      return create(CreateImageVariationsResponseSchema, { batch });
    },
    async *streamGenerateImages(req, call) {
      const image = { op: "generate" as const, prompt: req.prompt, options: req.options, images: [], stream: { partialImages: req.partialImages } };
      for await (const event of runStream(image, call)) yield create(StreamGenerateImagesResponseSchema, { event });
    },
    async *streamEditImages(req, call) {
      const image = { op: "edit" as const, prompt: req.prompt, options: req.options, images: req.images, mask: req.mask, stream: { partialImages: req.partialImages } };
      for await (const event of runStream(image, call)) yield create(StreamEditImagesResponseSchema, { event });
    },
  };
}
