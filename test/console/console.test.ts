// The admin console in a real browser (Debian's Chromium, headless, driven by
// playwright-core) against a gateway started here with the local engine:
// sign-in, the live task list while an imagine runs, a button, a modal and
// cancel from the task detail, keys (spent against budget, a link to the
// key's usage), usage (totals, the chart and its axis), channels, editing an
// image-bot account, and the playground's streamed chat, image generation and
// video (and cancelling one). A failed test leaves a screenshot under test/console/output/.
import t, { type Test } from "tap";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import type { Locator, Page } from "playwright-core";
import type { AppRouter } from "../../src/trpc/router.js";
import { ADMIN_KEY, startServer } from "../helpers/app.js";
import { ensureBundle, launchBrowser, newPage, resetOutput, sample, withScreenshot } from "./browser.js";

resetOutput();
ensureBundle();
const server = await startServer({
  config: {
    local: { blocklist: ["forbidden-topic"], chunkDelayMs: 60, signingSecret: "", faultInjection: true, taskMs: 2000 },
    imageBot: { tileSize: 48, pollIntervalMs: 50, accounts: [], bannedWords: [], translateModel: "" },
    channels: [{ name: "mj", provider: "midjourney", baseUrl: "http://127.0.0.1:9/mj", apiKey: "mj-secret", enabled: false }],
    // Priced, so that a key's spent moves: 0.5 credits per chat request, 1 per image.
    prices: { chat: [{ model: "claude-*", request: 0.5 }], images: [{ model: "*", perImage: 1 }] },
  } as never,
});
const browser = await launchBrowser();
// Teardowns run last-registered first: the browser (and its live connections) goes before the server.
t.teardown(() => server.close());
t.teardown(() => browser.close());
const { page, log } = await newPage(browser, server.baseUrl);

const trpc = (key = ADMIN_KEY) => createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: `${server.baseUrl}/trpc`, headers: { authorization: `Bearer ${key}` } })] });
const admin = trpc();
const byTestId = (id: string, attrs: Record<string, string> = {}) =>
  page.locator(
    `[data-testid="${id}"]${Object.entries(attrs)
      .map(([k, v]) => `[data-${k}="${v}"]`)
      .join("")}`,
  );

/** Waits (bounded) until the locator's text matches. */
async function waitText(l: Locator, re: RegExp, timeoutMs = 15_000): Promise<string> {
  const values = await sample(
    async () => ((await l.count()) ? ((await l.first().textContent()) ?? "").trim() : "<absent>"),
    (v) => re.test(v),
    timeoutMs,
  );
  return values.at(-1)!;
}
async function waitAttr(l: Locator, name: string, want: string, timeoutMs = 15_000): Promise<void> {
  await sample(
    () => l.getAttribute(name),
    (v) => v === want,
    timeoutMs,
  );
}
/** Waits (bounded) until a form control's value is `want`: a select shows a value only once its options have loaded. */
async function waitValue(l: Locator, want: string, timeoutMs = 15_000): Promise<string> {
  const values = await sample(
    () => l.inputValue(),
    (v) => v === want,
    timeoutMs,
  );
  return values.at(-1)!;
}
const go = async (nav: string) => {
  await byTestId(`nav-${nav}`).click();
  await page.waitForURL(`**/console/${nav}`);
};
async function messages(key: string, text: string): Promise<number> {
  const res = await fetch(`${server.baseUrl}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key, "anthropic-version": "2023-06-01" },
    body: JSON.stringify({ model: "claude-sonnet-4-6", max_tokens: 64, messages: [{ role: "user", content: text }] }),
  });
  await res.arrayBuffer();
  return res.status;
}
/** Element methods used inside page functions (the test compiles without the DOM library). */
type Attrs = { getAttribute(name: string): string | null };
const taskIdOf = (p: Page) => decodeURIComponent(new URL(p.url()).pathname.split("/").at(-1)!);
const test = (name: string, body: (t: Test) => Promise<void>) => t.test(name, (tt) => withScreenshot(tt, page, log, () => body(tt)));

test("sign-in: a wrong key and a non-admin key are refused; the admin key opens the console", async (t) => {
  const user = await admin.admin.keys.create.mutate({ name: "not-an-admin" });
  await page.goto("/console/");
  await byTestId("signin-key").fill("sk-wrong-key-000");
  await byTestId("signin-submit").click();
  await waitText(byTestId("signin-error"), /not valid/);
  await byTestId("signin-key").fill(user.secret);
  await byTestId("signin-submit").click();
  await waitText(byTestId("signin-error"), /not an admin key/);
  t.equal(await byTestId("nav-tasks").count(), 0, "still signed out");

  await byTestId("signin-key").fill(ADMIN_KEY);
  await byTestId("signin-submit").click();
  await byTestId("nav-tasks").waitFor();
  await page.waitForURL("**/console/tasks");
  await waitAttr(byTestId("live-status"), "data-state", "live");
  t.notOk(page.url().includes(ADMIN_KEY), "the key is not in the URL");
  t.equal(await page.evaluate("sessionStorage.getItem('omnigate.console.key')"), ADMIN_KEY, "kept in this tab's session storage");
  t.equal(await page.evaluate("localStorage.length"), 0, "nothing in local storage");
  await page.reload();
  await byTestId("nav-tasks").waitFor();
  t.pass("a reload keeps the session");
});

test("playground imagine: the live list shows the progress bar moving until SUCCESS", async (t) => {
  await go("playground");
  await byTestId("imagine-prompt").fill("a lighthouse at dusk");
  await byTestId("imagine-submit").click();
  const id = (await byTestId("imagine-result").getAttribute("data-task-id"))!;
  t.match(id, /^\d+$/);
  await byTestId("imagine-open").click();
  await page.waitForURL(`**/console/tasks/image-bot/${id}`);
  const row = byTestId("task-row", { "task-id": id });
  const seen = await sample(
    async () => ({ status: await row.getAttribute("data-status"), progress: Number(await row.getByTestId("task-progress").getAttribute("aria-valuenow")) }),
    (v) => v.status === "SUCCESS",
  );
  const progress = seen.map((v) => v.progress);
  t.ok(new Set(progress.filter((p) => p > 0 && p < 100)).size >= 2, `the bar moved through several values: ${JSON.stringify(seen)}`);
  t.same(
    progress,
    [...progress].sort((a, b) => a - b),
    "and never went back",
  );
  t.equal(seen.at(-1)!.progress, 100);
  t.match(await row.locator(".progress-fill").getAttribute("style"), /width: 100%/);
  t.equal(await row.getAttribute("data-kind"), "image-bot");

  const detail = byTestId("task-detail", { "task-id": id });
  await waitText(detail.getByTestId("task-detail-status"), /^SUCCESS$/);
  await detail.getByTestId("task-buttons").waitFor();
  t.same(await detail.getByTestId("task-button").evaluateAll((els) => els.map((e) => (e as unknown as Attrs).getAttribute("data-label"))), ["U1", "U2", "U3", "U4", "🔄", "V1", "V2", "V3", "V4"]);
  await sample(
    () => detail.getByTestId("task-image").evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
    (w) => w > 0,
  );
  t.pass("the grid image loaded");

  await byTestId("task-filter-status").selectOption("failed");
  await byTestId("task-empty").waitFor();
  t.equal(await byTestId("task-row").count(), 0, "the status filter hides it");
  await byTestId("task-filter-status").selectOption("succeeded");
  await row.waitFor();
  await byTestId("task-filter-kind").selectOption("video");
  await row.waitFor({ state: "detached" });
  await byTestId("task-filter-kind").selectOption("");
  await byTestId("task-filter-status").selectOption("");
  await row.waitFor();
});

test("task detail: U1, then Custom Zoom confirmed in its modal form, then a queued task cancelled", async (t) => {
  const gridId = taskIdOf(page);
  await byTestId("task-button", { label: "U1" }).click();
  await page.waitForURL((u) => u.pathname.startsWith("/console/tasks/image-bot/") && !u.pathname.endsWith(`/${gridId}`));
  const upId = taskIdOf(page);
  const up = byTestId("task-detail", { "task-id": upId });
  await waitText(up.getByTestId("task-detail-status"), /^SUCCESS$/, 20_000);
  await waitText(up, /UPSCALE/);
  t.match(await up.textContent(), new RegExp(`Parent${gridId}`), "it names the grid as its parent");
  t.equal(await byTestId("task-row", { "task-id": upId }).getAttribute("data-status"), "SUCCESS", "and is in the live list");

  await byTestId("task-button", { label: "Custom Zoom" }).click();
  await page.waitForURL((u) => !u.pathname.endsWith(`/${upId}`));
  const zoomId = taskIdOf(page);
  const zoom = byTestId("task-detail", { "task-id": zoomId });
  await waitText(zoom.getByTestId("task-detail-status"), /^MODAL$/);
  t.match(await zoom.getByTestId("modal-prompt").inputValue(), /--zoom 2$/, "the form offers a valid zoom");
  await zoom.getByTestId("modal-prompt").fill("a lighthouse at dusk --zoom 1.5");
  await zoom.getByTestId("modal-submit").click();
  await waitText(zoom.getByTestId("task-detail-status"), /^SUCCESS$/, 20_000);
  t.match(await admin.imageBot.get.query({ id: zoomId }), { action: "ZOOM", status: "SUCCESS", prompt: "a lighthouse at dusk --zoom 1.5" });

  // One slot: the console's task waits behind another until it is cancelled.
  await admin.admin.accounts.update.mutate({ id: "local", concurrency: 1 });
  t.teardown(() => admin.admin.accounts.update.mutate({ id: "local", concurrency: 3 }));
  await admin.imageBot.imagine.mutate({ prompt: "holds the only slot" });
  await go("playground");
  await byTestId("imagine-prompt").fill("to be cancelled");
  await byTestId("imagine-submit").click();
  await byTestId("imagine-open").click();
  const doomedId = taskIdOf(page);
  const doomed = byTestId("task-detail", { "task-id": doomedId });
  await doomed.getByTestId("task-cancel").click();
  await byTestId("confirm-ok").click();
  await waitText(doomed.getByTestId("task-detail-status"), /^CANCEL$/);
  await waitAttr(byTestId("task-row", { "task-id": doomedId }), "data-status", "CANCEL");
  t.equal((await admin.imageBot.get.query({ id: doomedId })).status, "CANCEL");
});

test("keys: create shows the secret once; edit scopes, budget and limits; revoke", async (t) => {
  await go("keys");
  await byTestId("key-new").click();
  await byTestId("key-create-name").fill("ci-bot");
  await byTestId("key-create-format-messages").check();
  await byTestId("key-create-models").fill("claude-*");
  await byTestId("key-create-budget").fill("5");
  await byTestId("key-create-rpm").fill("60");
  await byTestId("key-create-submit").click();
  const secret = await waitText(byTestId("key-secret"), /^sk-og-/);
  t.equal(await messages(secret, "hello"), 200, "the new key works");
  const row = byTestId("key-row", { name: "ci-bot" });
  await waitText(row.getByTestId("key-scope"), /^messages/);
  t.equal(await row.getByTestId("key-budget").getAttribute("data-budget"), "5");
  t.match(await row.getByTestId("key-limits").textContent(), /^60 rpm$/);
  await byTestId("key-secret-dismiss").click();
  t.equal(await byTestId("key-secret").count(), 0);
  t.notOk((await page.content()).includes(secret), "the secret is gone once dismissed");
  await page.reload();
  await row.waitFor();
  t.notOk((await page.content()).includes(secret), "and never listed again");

  await row.getByTestId("key-edit").click();
  await byTestId("key-edit-budget").fill("9");
  await byTestId("key-edit-format-images").check();
  await byTestId("key-edit-concurrent").fill("1.5");
  await byTestId("key-edit-save").click();
  await waitText(byTestId("key-edit-concurrent-error"), /whole number/);
  t.equal((await admin.admin.keys.list.query()).find((k) => k.name === "ci-bot")?.budget, 5, "an invalid field keeps the form from saving");
  await byTestId("key-edit-concurrent").fill("2");
  await byTestId("key-edit-save").click();
  await waitAttr(row.getByTestId("key-budget"), "data-budget", "9");
  t.match(await row.getByTestId("key-budget").textContent(), /^0\.5 \/ 9 \(5\.6%\)/, "spent against budget: one priced request");
  t.match(await row.getByTestId("key-limits").textContent(), /^60 rpm · 2 concurrent$/);
  await waitText(row.getByTestId("key-scope"), /messages, images/);
  const stored = (await admin.admin.keys.list.query()).find((k) => k.name === "ci-bot");
  t.match(stored, { budget: 9, formats: ["messages", "images"], models: ["claude-*"], limits: { requestsPerMinute: 60, concurrentRequests: 2 } });

  await row.getByTestId("key-revoke").click();
  await byTestId("confirm-ok").click();
  await row.waitFor({ state: "detached" });
  t.equal(await messages(secret, "hello"), 401, "a revoked key is refused");
  await byTestId("key-show-revoked").check();
  await row.getByTestId("key-revoked").waitFor();
});

/** The y axis as drawn: its tick values (data-ticks) and the label texts. */
async function chartAxis() {
  const ticks = ((await byTestId("usage-chart").getAttribute("data-ticks")) ?? "").split(",").map(Number);
  const labels = await byTestId("usage-tick").allTextContents();
  return { ticks, labels };
}

test("usage: a key's usage from the Keys page; totals, spent and the chart move after requests", async (t) => {
  const probe = await admin.admin.keys.create.mutate({ name: "usage-probe", budget: 10, limits: { requestsPerMinute: 100, tokensPerMinute: 20_000, concurrentRequests: 0 } });
  await go("keys");
  const row = byTestId("key-row", { name: "usage-probe" });
  t.equal(await row.getByTestId("key-limits").textContent(), "100 rpm · 20K tpm", "limits at a glance");
  t.match(await row.getByTestId("key-budget").textContent(), /^0 \/ 10 \(0%\)/, "spent against budget at a glance");
  await row.getByTestId("key-usage").click();
  await page.waitForURL((u) => u.pathname === "/console/usage" && u.searchParams.get("key") === probe.key.id);
  await byTestId("usage-auto").uncheck();
  // The key select holds the URL's key once the key list it offers has loaded (read at once, it was still "" now and then).
  t.equal(await waitValue(byTestId("usage-key"), probe.key.id), probe.key.id, "the Usage page opens filtered by that key");
  await waitText(byTestId("usage-key-facts"), /^usage-probe/);
  await waitAttr(byTestId("usage-total-requests"), "data-value", "0");
  await byTestId("usage-chart-empty").waitFor();
  t.same(await chartAxis(), { ticks: [0, 1], labels: ["0", "1"] }, "an empty range: a clean 0..1 axis");

  t.equal(await messages(probe.secret, "count my tokens"), 200);
  t.equal(await messages(probe.secret, "and these"), 200);
  const img = await fetch(`${server.baseUrl}/v1/images/generations`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${probe.secret}` },
    body: JSON.stringify({ model: "dall-e-2", prompt: "a lighthouse", size: "256x256" }),
  });
  t.equal(img.status, 200);
  await byTestId("usage-refresh").click();
  await waitAttr(byTestId("usage-total-requests"), "data-value", "3");
  t.ok(Number(await byTestId("usage-total-input").getAttribute("data-value")) > 0, "input tokens counted");
  t.ok(Number(await byTestId("usage-total-output").getAttribute("data-value")) > 0, "output tokens counted");
  t.equal(await byTestId("usage-total-images").getAttribute("data-value"), "1");
  t.equal(await byTestId("usage-total-credits").getAttribute("data-value"), "2", "2 x 0.5 + 1 credits");
  await waitAttr(byTestId("usage-key-facts").getByTestId("key-budget"), "data-spent", "2");
  t.equal(await byTestId("usage-chart-empty").count(), 0);
  const bars = await byTestId("usage-bar").evaluateAll((els) => els.map((e) => Number((e as unknown as Attrs).getAttribute("data-total"))));
  t.equal(
    bars.reduce((a, b) => a + b, 0),
    3,
    "the chart's bars add up to the total",
  );
  const axis = await chartAxis();
  t.ok(axis.ticks.every(Number.isInteger), `whole-number ticks for counts: ${axis.ticks}`);
  t.equal(new Set(axis.labels).size, axis.labels.length, `no repeated labels: ${axis.labels}`);
  t.same(axis.labels, axis.ticks.map(String));
  t.ok(axis.ticks.at(-1)! >= Math.max(...bars) && axis.ticks.at(-1)! <= 3, "the axis ends at the highest bar");
  t.equal(await byTestId("usage-legend-item", { name: "claude-sonnet-4-6" }).count(), 1, "one series per model");
  await byTestId("usage-group").selectOption("key");
  await byTestId("usage-legend-item", { name: "usage-probe" }).waitFor();
  t.pass("per key, named");
  // The records list loads apart from the chart: wait for it rather than read it at once.
  t.equal(
    (
      await sample(
        () => byTestId("usage-record").count(),
        (n) => n === 3,
      )
    ).at(-1),
    3,
    "the latest records",
  );

  await page.reload();
  await waitText(byTestId("usage-key-facts"), /^usage-probe/);
  t.pass("a reload keeps the key filter");
  await byTestId("usage-key-clear").click();
  t.equal(await waitValue(byTestId("usage-key"), ""), "", "the key filter cleared");
  t.notOk(page.url().includes("key="), "and clearing it leaves the URL");
  await go("keys");
  await waitAttr(row.getByTestId("key-budget"), "data-spent", "2");
  t.match(await row.getByTestId("key-budget").textContent(), /^2 \/ 10 \(20%\)/, "the Keys page shows the spend");
});

test("channels and accounts: enable and disable", async (t) => {
  await go("channels");
  const mj = byTestId("channel-row", { name: "mj" });
  await waitAttr(mj, "data-enabled", "false");
  await mj.getByTestId("channel-toggle").click();
  await waitAttr(mj, "data-enabled", "true");
  t.equal((await admin.admin.channels.list.query()).find((c) => c.name === "mj")?.enabled, true);
  await mj.getByTestId("channel-toggle").click();
  await waitAttr(mj, "data-enabled", "false");
  t.equal((await admin.admin.channels.list.query()).find((c) => c.name === "mj")?.enabled, false);

  const local = byTestId("account-row", { id: "local" });
  await waitAttr(local, "data-enabled", "true");
  await local.getByTestId("account-toggle").click();
  await waitAttr(local, "data-enabled", "false");
  t.match(await admin.imageBot.imagine.mutate({ prompt: "no account takes this" }), { code: 24 }, "no enabled account is left");
  await local.getByTestId("account-toggle").click();
  await waitAttr(local, "data-enabled", "true");
  t.equal((await admin.imageBot.imagine.mutate({ prompt: "taken again" })).code, 1);
});

test("accounts: edit concurrency, queue size, modes and remark; invalid values shown beside their fields", async (t) => {
  const local = byTestId("account-row", { id: "local" });
  const load = local.getByTestId("account-load");
  const stored = async () => (await admin.admin.accounts.list.query()).find((a) => a.id === "local");
  t.teardown(() => admin.admin.accounts.update.mutate({ id: "local", concurrency: 3, queueSize: 10, modes: ["FAST"], remark: "" }));
  await waitAttr(load, "data-concurrency", "3");
  await local.getByTestId("account-edit").click();
  await byTestId("account-edit-concurrency").fill("0");
  await byTestId("account-edit-queueSize").fill("20000");
  await byTestId("account-edit-mode-FAST").uncheck();
  await byTestId("account-edit-save").click();
  await waitText(byTestId("account-edit-concurrency-error"), /from 1 to 100/);
  t.match(await byTestId("account-edit-queueSize-error").textContent(), /from 0 to 10,000/);
  t.match(await byTestId("account-edit-modes-error").textContent(), /at least one mode/);
  t.equal(await byTestId("account-edit-concurrency").getAttribute("aria-invalid"), "true");
  t.match(await stored(), { concurrency: 3, queueSize: 10, modes: ["FAST"] }, "nothing was saved");
  await byTestId("account-edit-concurrency").fill("1");
  t.equal(await byTestId("account-edit-concurrency-error").count(), 0, "an error goes once its field changes");
  await byTestId("account-edit-queueSize").fill("4");
  await byTestId("account-edit-mode-RELAX").check();
  await byTestId("account-edit-mode-FAST").check();
  await byTestId("account-edit-remark").fill("night shift");
  await byTestId("account-edit-save").click();
  await byTestId("account-edit-form").waitFor({ state: "detached" });
  await waitAttr(load, "data-concurrency", "1");
  t.match(await load.textContent(), /\/ 1 running.*\/ 4 queued/, "the running / queued column shows the new limits");
  t.match(await local.textContent(), /night shift/);
  t.match(await stored(), { concurrency: 1, queueSize: 4, modes: ["RELAX", "FAST"], remark: "night shift" });

  // Three imagines on one slot: one runs, the others wait, and the column says so.
  const codes = [];
  for (const n of [1, 2, 3]) codes.push((await admin.imageBot.imagine.mutate({ prompt: `slot ${n}` })).code);
  t.ok(
    codes.every((c) => c === 1 || c === 22),
    `submitted or queued: ${codes}`,
  );
  const seen = await sample(
    async () => {
      await byTestId("channels-refresh").click();
      await new Promise((r) => setTimeout(r, 150));
      return { running: Number(await load.getAttribute("data-running")), queued: Number(await load.getAttribute("data-queued")) };
    },
    (v) => v.running === 1 && v.queued >= 1,
    10_000,
  );
  t.ok(
    seen.every((v) => v.running <= 1 && v.queued <= 4),
    `never more than the limits: ${JSON.stringify(seen)}`,
  );
});

test("playground: a chat streamed token by token, an image and a video", async (t) => {
  await go("playground");
  const words = "one two three four five six seven eight nine ten eleven twelve";
  await byTestId("chat-input").fill(words);
  // Every text the streamed answer shows, recorded in the page as it changes.
  await page.evaluate(`(() => {
    window.__steps = [];
    new MutationObserver(() => {
      const out = document.querySelector('[data-testid=chat-output]');
      if (out && out.textContent && window.__steps.at(-1) !== out.textContent) window.__steps.push(out.textContent);
    }).observe(document.querySelector('[data-testid=chat-transcript]'), { childList: true, subtree: true, characterData: true });
  })()`);
  await byTestId("chat-submit").click();
  await waitAttr(byTestId("chat-status"), "data-state", "done");
  const final = (await byTestId("chat-answer").last().textContent())!;
  t.equal(final, `You said: ${words}`);
  const partials = (await page.evaluate("window.__steps")) as string[];
  // The local engine streams a few words per chunk: the answer shows up in several steps.
  t.ok(partials.length >= 3, `the answer grew in steps: ${JSON.stringify(partials)}`);
  t.ok(
    partials.every((p) => final.startsWith(p)),
    "each step a prefix of the answer",
  );
  t.same(
    partials,
    [...partials].sort((a, b) => a.length - b.length),
    "and only grew",
  );
  t.match(await byTestId("chat-status").textContent(), /finish: stop/);

  await byTestId("image-prompt").fill("a lighthouse");
  await byTestId("image-size").fill("256x256");
  await byTestId("image-submit").click();
  const img = byTestId("image-output");
  await img.waitFor();
  t.equal(
    await sample(
      () => img.evaluate((e) => (e as unknown as { naturalWidth: number }).naturalWidth),
      (w) => w > 0,
    ).then((v) => v.at(-1)),
    256,
  );

  await byTestId("video-prompt").fill("a calico cat");
  await byTestId("video-seconds").fill("1");
  await byTestId("video-size").fill("160x90");
  await byTestId("video-submit").click();
  await byTestId("video-open").click();
  const videoId = taskIdOf(page);
  const detail = byTestId("task-detail", { "task-id": videoId });
  await waitText(detail.getByTestId("task-detail-status"), /^COMPLETED$/, 30_000);
  t.match(await detail.getByTestId("task-video").getAttribute("src"), /\/files\//);
  t.equal(await byTestId("task-row", { "task-id": videoId }).getAttribute("data-kind"), "video");
  t.equal(await detail.getByTestId("video-cancel").count(), 0, "a finished video has no cancel");

  await go("playground");
  await byTestId("video-prompt").fill("a video to cancel");
  await byTestId("video-submit").click();
  await byTestId("video-open").click();
  const doomedId = taskIdOf(page);
  const doomed = byTestId("task-detail", { "task-id": doomedId });
  await doomed.getByTestId("video-cancel").click();
  await byTestId("confirm-ok").click();
  await waitText(doomed.getByTestId("task-detail-status"), /^FAILED$/);
  await waitText(doomed.locator(".media.placeholder"), /^Cancelled$/);
  await waitAttr(byTestId("task-row", { "task-id": doomedId }), "data-status", "FAILED");
  t.equal(await doomed.getByTestId("video-cancel").count(), 0, "no cancel once it is over");
  t.match(await admin.videos.get.query({ id: doomedId }), { status: "FAILED", error: { code: "cancelled" }, url: "" });
});

test("the page stayed clean: no script errors, no key in any URL", async (t) => {
  const unexpected = log.errors.filter((e) => !/Failed to load resource: the server responded with a status of 40[13]/.test(e));
  t.same(unexpected, [], "no console errors (CSP violations included)");
  t.notOk(
    log.requests.some((r) => r.url.includes(ADMIN_KEY)),
    "the key never appears in a URL",
  );
  const trpcCalls = log.requests.filter((r) => new URL(r.url).pathname.startsWith("/trpc/"));
  t.ok(trpcCalls.length > 20);
  t.ok(
    trpcCalls.every((r) => r.authorization?.startsWith("Bearer ")),
    "every tRPC call (subscriptions included) sends the key as a header",
  );
});
