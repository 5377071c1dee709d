// The video-gateway provider against a fake remote /v1/video/generations on
// loopback (both the omnigate and the new-api answer styles): submit with
// the channel key, poll until done, download the result (the key never goes
// to another host), resume from a saved id, failures mapped.
import t from "tap";
import { Code, ConnectError } from "@connectrpc/connect";
import { errorDetail } from "../../../src/core/errors.js";
import { silentLogger } from "../../../src/providers/shared/log.js";
import type { VideoJob } from "../../../src/core/ports.js";
import { videoGatewayClient } from "../../../src/providers/video-gateway/client.js";
import { videoGatewayProvider } from "../../../src/providers/video-gateway/provider.js";
import { fakeVideoGateway } from "./fake.js";

const KEY = "gw-key-1";
const job = (over: Partial<VideoJob> = {}): VideoJob => ({
  taskId: "video_t",
  prompt: "a calico cat",
  upstreamModel: "kling",
  width: 80,
  height: 48,
  duration: 1,
  fps: 4,
  seed: 5,
  given: { size: "80x48", aspectRatio: "", duration: 1, fps: 4, seed: 5 },
  metadata: {},
  ...over,
});
function ctx() {
  const progress: number[] = [];
  const saved: Array<Record<string, unknown>> = [];
  return { progress, saved, ctx: { signal: new AbortController().signal, progress: async (p: number) => void progress.push(p), save: async (s: Record<string, unknown>) => void saved.push(s) } };
}

for (const style of ["omnigate", "new-api"] as const) {
  t.test(`${style} style`, async (t) => {
    const fake = await fakeVideoGateway({ key: KEY, style });
    const client = videoGatewayClient({ channel: "gw", baseUrl: fake.baseUrl, apiKey: KEY, maxBytes: 10 * 1024 * 1024, log: silentLogger });
    t.teardown(async () => {
      await client.close();
      await fake.close();
    });
    const provider = videoGatewayProvider(client, { firstMs: 5, maxMs: 20 });

    const c = ctx();
    const out = await provider.run(job({ metadata: { mode: "pro" } }), c.ctx);
    const submit = fake.calls[0]!;
    t.same([submit.method, submit.path, submit.auth], ["POST", "/v1/video/generations", `Bearer ${KEY}`]);
    t.same(submit.body, { model: "kling", prompt: "a calico cat", duration: 1, fps: 4, seed: 5, size: "80x48", metadata: { mode: "pro" } });
    t.same(c.saved, [{ upstreamId: "gw_1" }]);
    t.same(c.progress, [30]);
    t.equal(Buffer.from(out.video.data).subarray(4, 8).toString(), "ftyp");
    t.equal(out.upstreamId, "gw_1");
    t.same(
      fake.downloads.map((d) => d.auth),
      [""],
      "the channel key is not sent to the file host",
    );

    const rel = await provider.run(job({ prompt: "relative url" }), ctx().ctx);
    t.equal(Buffer.from(rel.video.data).subarray(4, 8).toString(), "ftyp");
    t.equal(fake.downloads.at(-1)!.auth, `Bearer ${KEY}`, "a relative url is the gateway's own: key sent");

    const before = fake.calls.length;
    await provider.run(job({ resume: { upstreamId: "gw_1" } }), ctx().ctx);
    t.notOk(
      fake.calls.slice(before).some((x) => x.method === "POST"),
      "a resumed job does not submit again",
    );

    const codes = async (prompt: string) => {
      let e: ConnectError | undefined;
      try {
        await provider.run(job({ prompt }), ctx().ctx);
      } catch (x) {
        e = ConnectError.from(x);
      }
      if (!e) return ["succeeded"];
      return [e.code, errorDetail(e)?.reason];
    };
    t.same(await codes("moderate me"), [Code.InvalidArgument, "moderation_blocked"]);
    t.same(await codes("http-500"), [Code.Internal, "upstream_error"]);
    t.same(await codes("http-400"), [Code.InvalidArgument, "upstream_invalid_request"]);
    t.same(await codes("http-429"), [Code.ResourceExhausted, "rate_limited"]);
    t.same(await codes("no-url"), [Code.Internal, "upstream_protocol_error"]);
  });
}
