// A video channel on a remote gateway speaking /v1/video/generations: submit,
// save the upstream task id (a restart resumes polling), poll with backoff,
// then download the result so the gateway re-hosts it.
import { pollUntil } from "../../core/video/poll.js";
import type { VideoJob, VideoOutput, VideoProvider, VideoRunContext } from "../../core/ports.js";
import { protocolError } from "../shared/http-errors.js";
import type { VideoGatewayClient } from "./client.js";
import { VENDOR } from "./errors.js";
import { failedTaskError, fromVendorTask, toVendorSubmit, type GatewayState } from "./translate.js";

export interface PollSettings {
  firstMs: number;
  maxMs: number;
}

export function videoGatewayProvider(client: VideoGatewayClient, poll: PollSettings): VideoProvider {
  return {
    kind: VENDOR,
    async run(job: VideoJob, ctx: VideoRunContext): Promise<VideoOutput> {
      const { signal } = ctx;
      let id = typeof job.resume?.upstreamId === "string" ? job.resume.upstreamId : "";
      if (!id) {
        id = await client.submit(toVendorSubmit(job), signal);
        await ctx.save({ upstreamId: id });
      }
      let shown = -1;
      const done = await pollUntil<Exclude<GatewayState, { state: "running" }>>(
        async () => {
          const s = fromVendorTask(await client.get(id, signal));
          if (s.state === "invalid") throw protocolError(VENDOR, s.why);
          if (s.state !== "running") return s;
          if (s.progress > shown) {
            shown = s.progress;
            await ctx.progress(s.progress);
          }
          return undefined;
        },
        { firstMs: poll.firstMs, maxMs: poll.maxMs, signal },
      );
      if (done.state === "failed") throw failedTaskError(done.code, VENDOR, done.detail);
      const video = await client.download(done.url, signal);
      return { video, upstreamId: id };
    },
  };
}
