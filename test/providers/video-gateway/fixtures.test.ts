// Recorded answers of remote video gateways (omnigate's and new-api's shapes).
import t from "tap";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fromVendorTask } from "../../../src/providers/video-gateway/translate.js";
import { task } from "../../../src/providers/video-gateway/wire.js";

const dir = path.resolve(import.meta.dirname, "../../fixtures/video-gateway");
const read = (name: string) => fromVendorTask(task.parse(JSON.parse(readFileSync(path.join(dir, name), "utf8"))));

t.test("both shapes are understood", async (t) => {
  t.same(read("omnigate-succeeded.json"), { state: "completed", url: "https://gw.example/files/file_0123456789abcdef0123456789abcdef?exp=1764000000&sig=aa" });
  t.match(read("omnigate-failed.json"), { state: "failed", code: "moderation_blocked" });
  t.same(read("new-api-completed.json"), { state: "completed", url: "https://cdn.example/kling/abc.mp4" });
  t.same(read("new-api-in-progress.json"), { state: "running", progress: 45 });
});
