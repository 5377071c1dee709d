// An OpenAI-compatible images upstream as an ImageProvider: the job goes up as
// JSON (generations) or multipart (edits, variations), and every result comes
// back as bytes (b64 decoded, URLs downloaded) so the core re-hosts it.
import type { CallContext, ImageJob, ImageProvider, ImageResult } from "../types.js";
import { badResponse, type OpenAIClient } from "./client.js";
import { fromVendorImages, IMAGE_PATHS, toVendorForm, toVendorGenerate } from "./images.js";
import { imagesResponse } from "./wire.js";

export function openaiImageProvider(channel: string, client: OpenAIClient): ImageProvider {
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
    },
  };
}
