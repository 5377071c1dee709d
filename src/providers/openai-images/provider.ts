// An OpenAI-compatible images upstream as an ImageProvider: the job goes up as
// JSON (generations) or multipart (edits, variations), and every result comes
// back as bytes (b64 decoded, URLs downloaded) so the core re-hosts it. A
// streamed job asks for server-sent events and relays them: partial images as
// they come, the completed images (and their usage, added up) at the end.
import type { CallContext, ImageJob, ImageProvider, ImageResult, ImageStreamEvent, ProducedImage } from "../../core/ports.js";
import { eventJson, sseMap } from "../shared/sse.js";
import { badResponse, type OpenAIClient } from "./client.js";
import { fromStreamError } from "./errors.js";
import { addUsage, fromVendorImages, fromVendorUsage, IMAGE_PATHS, toVendorForm, toVendorGenerate } from "./translate.js";
import { imageStreamEvent, imagesResponse } from "./wire.js";
import type { ImageUsage } from "../../../gen/omnigate/image/v1/image_pb.js";

export function openaiImageProvider(channel: string, client: OpenAIClient): ImageProvider {
  /** A whole answer's images as bytes. */
  async function resultOf(raw: unknown, ctx: CallContext): Promise<ImageResult> {
    const parsed = imagesResponse.safeParse(raw);
    if (!parsed.success) throw badResponse(channel);
    const { images, usage } = fromVendorImages(parsed.data);
    if (!images.length) throw badResponse(channel);
    const out = [];
    for (const img of images) {
      let data: Uint8Array;
      if (img.b64) data = Buffer.from(img.b64, "base64");
      else if (img.url) data = await client.download(img.url, ctx.signal);
      else throw badResponse(channel);
      if (!data.byteLength) throw badResponse(channel);
      out.push({ data, ...(img.revisedPrompt ? { revisedPrompt: img.revisedPrompt } : {}) });
    }
    return { images: out, usage };
  }

  const decoded = (b64: string | null | undefined): Uint8Array => {
    const data = Buffer.from(b64 ?? "", "base64");
    if (!data.byteLength) throw badResponse(channel);
    return data;
  };

  return {
    kind: "openai",
    async run(job: ImageJob, ctx: CallContext): Promise<ImageResult> {
      const path = IMAGE_PATHS[job.operation];
      let raw: unknown;
      if (job.operation === "generate") raw = await client.postJson(path, toVendorGenerate(job, ctx.upstreamModel), ctx.signal, ctx.requestId);
      else {
        const form = toVendorForm(job, ctx.upstreamModel);
        raw = await client.postForm(path, form.fields, form.files, ctx.signal, ctx.requestId);
      }
      return resultOf(raw, ctx);
    },
    async *stream(job: ImageJob, ctx: CallContext): AsyncGenerator<ImageStreamEvent> {
      const path = IMAGE_PATHS[job.operation];
      let answer;
      if (job.operation === "generate") answer = await client.streamJson(path, toVendorGenerate(job, ctx.upstreamModel), ctx.signal, ctx.requestId);
      else {
        const form = toVendorForm(job, ctx.upstreamModel);
        answer = await client.streamForm(path, form.fields, form.files, ctx.signal, ctx.requestId);
      }
      // A compatible server that does not stream answers whole: its result, with no previews.
      if (!answer.events) {
        yield { kind: "result", result: await resultOf(answer.json, ctx) };
        return;
      }
      const images: ProducedImage[] = [];
      let usage: ImageUsage | undefined;
      for await (const e of sseMap(answer.events, "openai", (ev) => [ev])) {
        const data = e.data.trim();
        if (!data || data === "[DONE]") continue;
        const json = eventJson(e) as { error?: unknown; type?: unknown } | undefined;
        if (e.event === "error" || json?.type === "error" || (json && typeof json === "object" && json.error)) throw fromStreamError(json, channel);
        const parsed = imageStreamEvent.safeParse(json);
        if (!parsed.success) throw badResponse(channel);
        const ev = parsed.data;
        if (ev.type.endsWith(".partial_image")) {
          yield { kind: "partial", imageIndex: images.length, partialIndex: ev.partial_image_index ?? 0, data: decoded(ev.b64_json) };
        } else if (ev.type.endsWith(".completed")) {
          images.push({ data: decoded(ev.b64_json) });
          usage = addUsage(usage, fromVendorUsage(ev.usage));
        }
      }
      if (!images.length) throw badResponse(channel);
      yield { kind: "result", result: { images, usage } };
    },
  };
}
