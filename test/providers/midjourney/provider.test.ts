// The midjourney-proxy provider on its own, against the fake upstream:
// resume rules after a restart, polls that fail for a while, seeds.
import t from "tap";
import { midjourneyClient } from "../../../src/providers/midjourney/client.js";
import { midjourneyProvider } from "../../../src/providers/midjourney/provider.js";
import type { ImageBotJob, ImageBotRunContext } from "../../../src/core/ports.js";
import type { MidjourneyClient } from "../../../src/providers/midjourney/client.js";
import { fakeUpstream, UPSTREAM_MARKER } from "./fake-upstream.js";

const job = (p: Partial<ImageBotJob> = {}): ImageBotJob => ({ taskId: "t", operation: { kind: "imagine" }, prompt: "cat", botType: "PRIMARY_BOT", seed: 1, inputs: [], ...p });

function ctx() {
  const saved: Record<string, unknown>[] = [];
  const progress: number[] = [];
  const c: ImageBotRunContext = { signal: new AbortController().signal, progress: async (p) => void progress.push(p), save: async (s) => void saved.push(s) };
  return { c, saved, progress };
}

t.test("provider", async (t) => {
  const up = await fakeUpstream();
  const client = midjourneyClient({ channel: "mj1", baseUrl: up.url, apiSecret: up.secret, timeoutMs: 2000 });
  const provider = midjourneyProvider(client, { pollIntervalMs: 5, maxPollErrors: 3 });
  t.teardown(async () => {
    await client.close();
    await up.close();
  });

  t.test("a fresh job: saves before and after submitting, then polls to the result", async (t) => {
    const { c, saved, progress } = ctx();
    const out = await provider.run(job(), c);
    t.same(saved[0], { phase: "submitting", channel: "mj1" });
    t.match(saved[1], { phase: "submitted", taskId: /^\d+$/ });
    t.same(progress, [0, 50]);
    t.match(out.image, { mimeType: "image/png", width: 40, height: 40, grid: true });
    t.equal(out.upstreamButtons!.length, 9);
  });

  t.test("resume: with an upstream id it polls without submitting; mid-submission it fails rather than risk a duplicate", async (t) => {
    const before = up.requests.filter((r) => r.path === "/mj/submit/imagine").length;
    const first = ctx();
    await provider.run(job(), first.c);
    const id = first.saved[1]!.taskId as string;
    up.tasks.get(id)!.polls = 0;
    const again = ctx();
    const out = await provider.run(job({ resume: { phase: "submitted", taskId: id } }), again.c);
    t.ok(out.image);
    t.equal(again.saved.length, 0);
    t.equal(up.requests.filter((r) => r.path === "/mj/submit/imagine").length, before + 1, "no second submission");
    await t.rejects(provider.run(job({ resume: { phase: "submitting" } }), ctx().c), {
      message: "failed: the gateway restarted while submitting to the upstream; it may or may not have been accepted there",
    });
  });

  t.test("polls that fail too often fail the job", async (t) => {
    await t.rejects(provider.run(job({ resume: { phase: "submitted", taskId: "does-not-exist" } }), ctx().c), /could not be polled/);
  });

  t.test("seed, and a follow-up without an upstream parent", async (t) => {
    const id = [...up.tasks.keys()][0]!;
    t.equal(await provider.seed!(id, new AbortController().signal), "424242");
    await t.rejects(provider.seed!("123", new AbortController().signal), { message: "the upstream has no seed for this task (code 3)" });
    await t.rejects(provider.run(job({ operation: { kind: "upscale", index: 1 }, parent: { prompt: "" } }), ctx().c), /no upstream task or button/);
  });
});

t.test("the upstream's refusal and failure texts go to the log, never into the error", async (t) => {
  const up = await fakeUpstream({ pollsToFinish: 3 });
  const client = midjourneyClient({ channel: "mj1", baseUrl: up.url, apiSecret: up.secret, timeoutMs: 2000 });
  const lines: Array<[Record<string, unknown>, string]> = [];
  const log = { warn: (o: Record<string, unknown>, m: string) => void lines.push([o, m]), debug: () => undefined };
  const provider = midjourneyProvider(client, { pollIntervalMs: 5, log });
  t.teardown(async () => {
    await client.close();
    await up.close();
  });
  const refused = await provider.run(job({ prompt: "leaky" }), ctx().c).catch((e: Error) => e);
  t.equal((refused as Error).message, "[internal] failed: the upstream refused the task: code 24 (banned prompt)");
  const failed = await provider.run(job({ prompt: "explode" }), ctx().c).catch((e: Error) => e);
  t.equal((failed as Error).message, "[internal] failed: the upstream task failed");
  t.same(
    lines.map(([o, m]) => [m, o.channel, String(o.detail).includes(UPSTREAM_MARKER)]),
    [
      ["upstream refused a task", "mj1", true],
      ["upstream task failed", "mj1", true],
    ],
  );
});

t.test("a poll that breaks with a library's error names no library text", async (t) => {
  const stub: MidjourneyClient = {
    channel: "stub",
    post: async () => ({ code: 1, result: "7" }),
    get: async () => {
      throw new Error("other side closed zz_library_text");
    },
    download: async () => ({ data: new Uint8Array(), mimeType: "" }),
    close: async () => undefined,
  };
  const provider = midjourneyProvider(stub, { pollIntervalMs: 1, maxPollErrors: 2 });
  const err = (await provider.run(job(), ctx().c).catch((e: Error) => e)) as Error;
  t.equal(err.message, "[internal] failed: the upstream task 7 could not be polled: the connection failed");
});
