// Recorded OpenAI Videos answers (wire-formats.md E.C) read by the provider,
// and the gateway's own Video objects have exactly their keys.
import t from "tap";
import { readFileSync } from "node:fs";
import path from "node:path";
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Status, VideoSchema } from "../../../gen/omnigate/video/v1/video_pb.js";
import { fromCoreVideo } from "../../../src/facades/video/translate.js";
import { fromVendorVideo } from "../../../src/providers/openai-videos/translate.js";
import { video } from "../../../src/providers/openai-videos/wire.js";

const dir = path.resolve(import.meta.dirname, "../../fixtures/openai-videos");
const fixture = (name: string) => JSON.parse(readFileSync(path.join(dir, name), "utf8")) as Record<string, unknown>;

t.test("the provider reads each recorded Video", async (t) => {
  t.same(fromVendorVideo(video.parse(fixture("create-queued.json"))), { state: "running", progress: 0 });
  t.same(fromVendorVideo(video.parse(fixture("retrieve-completed.json"))), { state: "completed" });
  t.match(fromVendorVideo(video.parse(fixture("retrieve-failed.json"))), { state: "failed", code: "moderation_blocked" });
  t.same(fromVendorVideo(video.parse(fixture("remix.json"))), { state: "running", progress: 0 });
});

t.test("the gateway's Video objects have the recorded keys and types", async (t) => {
  const ours = fromCoreVideo(
    create(VideoSchema, {
      id: "video_1",
      model: "sora-2",
      prompt: "A calico cat",
      status: Status.COMPLETED,
      progress: 100,
      duration: 4,
      width: 720,
      height: 1280,
      createTime: timestampFromMs(1758941485000),
      completeTime: timestampFromMs(1758941600000),
      expireTime: timestampFromMs(1759028000000),
    }),
  );
  const recorded = fixture("retrieve-completed.json");
  t.same(Object.keys(ours).sort(), Object.keys(recorded).sort());
  for (const [k, v] of Object.entries(recorded)) t.equal(typeof (ours as unknown as Record<string, unknown>)[k], typeof v, k);
  t.same({ ...ours, id: recorded.id }, recorded, "field for field");
  const list = fixture("list.json");
  t.same(Object.keys(list).sort(), ["data", "first_id", "has_more", "last_id", "object"]);
});
