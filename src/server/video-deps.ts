// Builds the video part of AppDeps: the local engine, one provider per
// video channel ("openai-videos", "video-gateway"), routing, the
// "video" kind of the shared task runner with one queue per channel, and the
// VideoService's dependencies. Renders and probes use <dataDir>/tmp-video,
// emptied at start (a killed process leaves its half-made files there).
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { DEFAULT_LOCAL_TASK_MS, type Config } from "../config.js";
import type { ChannelStates } from "../core/routing/channel-state.js";
import type { TaskRunner } from "../core/tasks/runner.js";
import { videoHandler } from "../core/video/video-handler.js";
import { isVideoChannel, videoQueue, videoRouting, type VideoChannel } from "../core/video/video-routing.js";
import type { VideoServiceDeps } from "../core/video/video-service.js";
import { jsonLogger } from "../providers/shared/log.js";
import { localVideoProvider } from "../providers/local/video/provider.js";
import { openaiVideosClient } from "../providers/openai-videos/client.js";
import { openaiVideosProvider } from "../providers/openai-videos/provider.js";
import { videoGatewayClient } from "../providers/video-gateway/client.js";
import { videoGatewayProvider } from "../providers/video-gateway/provider.js";
import type { Storage } from "../storage/types.js";
import type { FileDeps } from "./image-deps.js";

export interface VideoDeps {
  service: VideoServiceDeps;
  /** Closes upstream connection pools. */
  close(): Promise<void>;
}

export function createVideoDeps(config: Config, storage: Storage, files: FileDeps, runner: TaskRunner, now: () => number, states?: ChannelStates): VideoDeps {
  const upstreamLog = jsonLogger(config.logLevel);
  const log = { ...upstreamLog, error: (obj: object, msg: string) => upstreamLog.warn({ ...obj, severity: "error" }, msg) };
  const v = config.video;
  const up = config.upstream;
  const poll = { firstMs: v.pollMs, maxMs: Math.max(v.pollMs, v.maxPollMs) };
  const closers: Array<() => Promise<void>> = [];
  const tmpDir = path.join(config.dataDir, "tmp-video");
  rmSync(tmpDir, { recursive: true, force: true });
  mkdirSync(tmpDir, { recursive: true });
  // Every video channel gets a provider and a queue (a disabled one may be enabled at runtime).
  const channels: VideoChannel[] = config.channels
    .filter((c) => isVideoChannel(c))
    .map((channel) => {
      const common = {
        channel: channel.name,
        baseUrl: channel.baseUrl,
        apiKey: channel.apiKey,
        headers: channel.headers,
        connectTimeoutMs: channel.timeouts?.connectMs ?? up.connectTimeoutMs,
        headersTimeoutMs: channel.timeouts?.firstByteMs ?? up.firstByteTimeoutMs,
        bodyTimeoutMs: channel.timeouts?.chunkGapMs ?? up.chunkTimeoutMs,
        connections: up.connections,
        maxBytes: v.maxBytes,
        log,
        now,
      };
      if (channel.provider === "openai-videos") {
        const client = openaiVideosClient(common);
        closers.push(() => client.close());
        return { channel, provider: openaiVideosProvider(client, poll) };
      }
      const client = videoGatewayClient(common);
      closers.push(() => client.close());
      return { channel, provider: videoGatewayProvider(client, poll) };
    });
  const local = localVideoProvider({
    blocklist: config.local.blocklist,
    taskMs: config.local.taskMs ?? DEFAULT_LOCAL_TASK_MS,
    faultInjection: config.local.faultInjection,
    fontFile: v.fontFile,
    tmpDir,
  });
  const routing = videoRouting(channels, local, v.localModels, Math.random, states);
  runner.register(
    videoHandler({
      routing,
      blobs: files.blobs,
      ttlMs: v.ttlMs,
      timeoutMs: v.timeoutMs,
      allowPrivateUrls: v.allowPrivateUrls,
      log,
      now,
      tmpDir,
    }),
  );
  for (const name of routing.channels()) {
    runner.defineQueue(videoQueue(name), { concurrency: Math.max(1, name === "local" ? v.concurrency : v.channelConcurrency), queueSize: v.queueSize });
  }
  return {
    service: {
      runner,
      tasks: storage.tasks,
      routing,
      blobs: files.blobs,
      urlSecret: files.urlSecret,
      publicUrl: config.publicUrl,
      allowPrivateUrls: v.allowPrivateUrls,
      notifyHook: v.notifyHook,
      ttlMs: v.ttlMs,
      now,
    },
    async close() {
      await Promise.allSettled(closers.map((c) => c()));
    },
  };
}
