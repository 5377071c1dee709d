// A video channel on an OpenAI-videos-compatible API: create (or remix, when
// the parent was made on this channel), save the upstream id so a restart
// resumes polling instead of paying twice, poll with backoff, then download
// the video and its stills so the gateway re-hosts them.
import { pollUntil } from "../../core/video/poll.js";
import type { VideoAsset, VideoJob, VideoOutput, VideoProvider, VideoRunContext } from "../../core/ports.js";
import type { OpenAIVideosClient } from "./client.js";
import { VENDOR } from "./errors.js";
import { failedVideoError, fromVendorVideo, toVendorCreate, type PollState } from "./translate.js";

export interface PollSettings {
  firstMs: number;
  maxMs: number;
}

export function openaiVideosProvider(client: OpenAIVideosClient, poll: PollSettings): VideoProvider {
  async function still(id: string, variant: "thumbnail" | "spritesheet", signal: AbortSignal): Promise<VideoAsset | undefined> {
    try {
      const got = await client.content(id, variant, signal);
      return got.mimeType.startsWith("image/") && got.data.byteLength > 0 ? got : undefined;
    } catch (err) {
      if (signal.aborted) throw err;
      return undefined;
    }
  }

  return {
    kind: VENDOR,
    async run(job: VideoJob, ctx: VideoRunContext): Promise<VideoOutput> {
      const { signal } = ctx;
      let id = typeof job.resume?.upstreamId === "string" ? job.resume.upstreamId : "";
      if (!id) {
        const created = job.remixOf?.upstreamId ? await client.remix(job.remixOf.upstreamId, job.prompt, signal) : await client.create(toVendorCreate(job), signal);
        id = created.id;
        await ctx.save({ upstreamId: id });
      }
      let shown = -1;
      const done = await pollUntil<Exclude<PollState, { state: "running" }>>(
        async () => {
          const s = fromVendorVideo(await client.retrieve(id, signal));
          if (s.state !== "running") return s;
          if (s.progress > shown) {
            shown = s.progress;
            await ctx.progress(s.progress);
          }
          return undefined;
        },
        { firstMs: poll.firstMs, maxMs: poll.maxMs, signal },
      );
      if (done.state === "failed") throw failedVideoError(done.code, VENDOR, done.detail);
      const video = await client.content(id, "video", signal);
      return { video, thumbnail: await still(id, "thumbnail", signal), spritesheet: await still(id, "spritesheet", signal), upstreamId: id };
    },
  };
}
