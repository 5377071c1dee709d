// Every button end to end on the local engine, with real images: U1-U4,
// V1-V4, reroll, upscale subtle/creative, vary subtle/strong, vary region and
// custom zoom (both modal flows), zoom out, pans, describe and shorten to
// imagine, and remix accounts.
import t from "tap";
import { client, download, region, startIb } from "./ib-helpers.js";
import sharp from "sharp";

t.test("buttons on the local engine", async (t) => {
  const s = await startIb({ taskMs: 60 });
  t.teardown(() => s.close());
  const ib = client(s);
  const grid = await ib.run("/submit/imagine", { prompt: "a lighthouse at dusk --ar 3:2" });
  const gridImg = await download(grid.imageUrl);
  t.same([gridImg.width, gridImg.height], [64, 44]);

  t.test("U1-U4: each quadrant of the grid as its own image, at the quadrant's resolution", async (t) => {
    for (let n = 1; n <= 4; n++) {
      const up = await ib.press(grid, `U${n}`);
      t.match(up, { action: "UPSCALE", status: "SUCCESS", description: `/up ${grid.id} U${n}` });
      const img = await download(up.imageUrl);
      t.same([img.width, img.height], [32, 22], `U${n} size`);
      const left = ((n - 1) % 2) * 32;
      const top = Math.floor((n - 1) / 2) * 22;
      t.same(img.raw, await region(gridImg.bytes, left, top, 32, 22), `U${n} is quadrant ${n}`);
      t.equal(up.buttons.length, 12, "upscale buttons");
    }
  });

  t.test("V1-V4 and reroll: new grids related to the parent", async (t) => {
    for (let n = 1; n <= 4; n++) {
      const v = await ib.press(grid, `V${n}`);
      t.match(v, { action: "VARIATION", status: "SUCCESS", description: `/up ${grid.id} V${n}` });
      const img = await download(v.imageUrl);
      t.same([img.width, img.height], [64, 44]);
      t.notSame(img.raw, gridImg.raw, "a different grid");
      t.equal(v.buttons.length, 9);
    }
    const r = await ib.press(grid, "🔄");
    t.match(r, { action: "IMAGINE", status: "SUCCESS", prompt: grid.prompt, properties: { actionDetail: "REROLL" } });
    const img = await download(r.imageUrl);
    t.same([img.width, img.height], [64, 44]);
    t.notSame(img.raw, gridImg.raw, "a new seed, a new grid");
  });

  const u1 = await ib.press(grid, "U1");
  const u1Img = await download(u1.imageUrl);

  t.test("upscale subtle and creative double the image, once", async (t) => {
    for (const label of ["Upscale (Subtle)", "Upscale (Creative)"]) {
      const up = await ib.press(u1, label);
      t.match(up, { action: "UPSCALE", status: "SUCCESS" });
      const img = await download(up.imageUrl);
      t.same([img.width, img.height], [64, 44], label);
      t.equal(up.buttons.length, 10, "no further upscale buttons");
      t.notOk(up.buttons.some((b: { label: string }) => b.label.startsWith("Upscale")));
      const again = await ib.post("/submit/action", { taskId: up.id, customId: `MJ::JOB::upsample_v6_2x_subtle::1::${up.buttons[0].customId.split("::")[3]}::SOLO` });
      t.match(again, { status: 400, body: { code: 21 } }, "not among its buttons");
    }
  });

  t.test("vary subtle and strong: grids around the upscaled image, strong further away", async (t) => {
    const diff = async (task: { imageUrl: string }) => {
      const img = await download(task.imageUrl);
      const q = await region(img.bytes, 0, 0, 32, 22);
      let d = 0;
      for (let i = 0; i < q.length; i++) d += Math.abs(q[i]! - u1Img.raw[i]!);
      return { img, d };
    };
    const subtle = await diff(await ib.press(u1, "Vary (Subtle)"));
    const strong = await diff(await ib.press(u1, "Vary (Strong)"));
    t.same([subtle.img.width, subtle.img.height], [64, 44]);
    t.same([strong.img.width, strong.img.height], [64, 44]);
    t.ok(subtle.d < strong.d, `subtle (${subtle.d}) changes less than strong (${strong.d})`);
  });

  t.test("zoom out 2x and 1.5x: padded and filled, the original shrunk in the middle", async (t) => {
    for (const [label, factor] of [
      ["Zoom Out 2x", 2],
      ["Zoom Out 1.5x", 1.5],
    ] as const) {
      const z = await ib.press(u1, label);
      t.match(z, { action: "ZOOM", status: "SUCCESS" });
      const img = await download(z.imageUrl);
      t.same([img.width, img.height], [64, 44], label);
      const iw = Math.round(32 / factor);
      const ih = Math.round(22 / factor);
      const centre = await region(img.bytes, Math.round((32 - iw) / 2), Math.round((22 - ih) / 2), iw, ih);
      const shrunk = await sharp(u1Img.bytes).removeAlpha().resize(iw, ih, { fit: "fill" }).raw().toBuffer();
      let d = 0;
      for (let i = 0; i < centre.length; i++) d += Math.abs(centre[i]! - shrunk[i]!);
      t.ok(d / centre.length < 3, `${label}: the middle of each image is the original (mean diff ${(d / centre.length).toFixed(2)})`);
    }
  });

  t.test("pans extend the image in their direction", async (t) => {
    const sizes: Record<string, [number, number]> = { "⬅️": [96, 44], "➡️": [96, 44], "⬆️": [64, 68], "⬇️": [64, 68] };
    for (const [emoji, size] of Object.entries(sizes)) {
      const p = await ib.press(u1, emoji);
      t.match(p, { action: "PAN", status: "SUCCESS" });
      const img = await download(p.imageUrl);
      t.same([img.width, img.height], size, emoji);
      const at: Record<string, [number, number]> = { "⬅️": [16, 0], "➡️": [0, 0], "⬆️": [0, 12], "⬇️": [0, 0] };
      t.same(await region(img.bytes, at[emoji]![0], at[emoji]![1], 32, 22), u1Img.raw, `${emoji}: the original sits on the far side`);
    }
  });

  t.test("vary region: MODAL, then /submit/modal with a mask; only the masked area changes", async (t) => {
    const b = u1.buttons.find((x: { label: string }) => x.label === "Vary (Region)");
    const r = await ib.post("/submit/action", { taskId: u1.id, customId: b.customId });
    t.same(r.body, { code: 1, description: "Waiting for window confirm", properties: { status: "MODAL" }, result: r.body.result });
    const waiting = await ib.get(`/task/${r.body.result}/fetch`);
    t.match(waiting.body, { status: "MODAL", action: "VARIATION", progress: "0%", buttons: [], properties: { actionDetail: "INPAINT" } });
    t.match(await ib.post("/submit/modal", { taskId: r.body.result, prompt: "a boat" }), { status: 400, body: { code: 21, description: "maskBase64 is required for Vary (Region)" } });
    const mask = await sharp({ create: { width: 32, height: 22, channels: 3, background: "#000" } })
      .composite([
        {
          input: await sharp({ create: { width: 16, height: 22, channels: 3, background: "#fff" } })
            .png()
            .toBuffer(),
          left: 0,
          top: 0,
        },
      ])
      .png()
      .toBuffer();
    const m = await ib.post("/submit/modal", { taskId: r.body.result, prompt: "a boat", maskBase64: `data:image/png;base64,${mask.toString("base64")}` });
    t.match(m.body, { code: 1, result: r.body.result });
    const done = await ib.waitFor(r.body.result);
    t.match(done, { status: "SUCCESS", prompt: "a boat", promptEn: "a boat", properties: { finalPrompt: "a boat" } });
    const img = await download(done.imageUrl);
    t.same([img.width, img.height], [64, 44]);
    for (let q = 0; q < 4; q++) {
      const ox = (q % 2) * 32;
      const oy = Math.floor(q / 2) * 22;
      t.same(await region(img.bytes, ox + 16, oy, 16, 22), await region(u1Img.bytes, 16, 0, 16, 22), `image ${q + 1}: the unmasked right half is untouched`);
      t.notSame(await region(img.bytes, ox, oy, 16, 22), await region(u1Img.bytes, 0, 0, 16, 22), `image ${q + 1}: the masked left half changed`);
    }
  });

  t.test("custom zoom: MODAL, the prompt must carry --zoom 1..2", async (t) => {
    const b = u1.buttons.find((x: { label: string }) => x.label === "Custom Zoom");
    const r = await ib.post("/submit/action", { taskId: u1.id, customId: b.customId });
    t.equal(r.body.code, 1);
    t.equal((await ib.get(`/task/${r.body.result}/fetch`)).body.status, "MODAL");
    t.match(await ib.post("/submit/modal", { taskId: r.body.result }), { status: 400, body: { code: 21, description: "prompt: Custom Zoom needs --zoom with a value from 1 to 2" } });
    t.match(await ib.post("/submit/modal", { taskId: r.body.result, prompt: "lighthouse --zoom 3" }), { status: 400, body: { code: 21 } });
    t.match(await ib.post("/submit/modal", { taskId: r.body.result, prompt: "lighthouse --ar 1:1 --zoom 1.5" }), { status: 200, body: { code: 1 } });
    const done = await ib.waitFor(r.body.result);
    t.match(done, { action: "ZOOM", status: "SUCCESS", prompt: "lighthouse --ar 1:1 --zoom 1.5", properties: { actionDetail: "CUSTOM_ZOOM" } });
    const img = await download(done.imageUrl);
    t.same([img.width, img.height], [64, 64], "--ar 1:1 makes a square canvas");
    t.match(await ib.post("/submit/modal", { taskId: r.body.result, prompt: "again --zoom 1.5" }), { status: 400, body: { code: 21 } }, "a confirmed task is no longer MODAL");
  });

  t.test("describe -> imagine (MODAL with the chosen prompt) and describe retry", async (t) => {
    const d = await ib.run("/submit/describe", { base64: `data:image/png;base64,${u1Img.bytes.toString("base64")}` });
    const second = String(d.properties.finalPrompt).split("\n\n")[1]!.replace(/^2️⃣ /, "");
    const r = await ib.post("/submit/action", { taskId: d.id, customId: "MJ::Job::PicReader::2" });
    t.equal(r.body.code, 1);
    t.match((await ib.get(`/task/${r.body.result}/fetch`)).body, { status: "MODAL", action: "IMAGINE", prompt: second });
    t.equal((await ib.post("/submit/modal", { taskId: r.body.result })).body.code, 1);
    const done = await ib.waitFor(r.body.result);
    t.match(done, { action: "IMAGINE", status: "SUCCESS", prompt: second, description: `/imagine ${second}` });
    const img = await download(done.imageUrl);
    t.equal(img.width / img.height, 64 / 44, "the prompt's --ar is used");
    const retry = await ib.press(d, "🔄");
    t.match(retry, { action: "DESCRIBE", status: "SUCCESS" });
    t.equal(retry.properties.finalPrompt, d.properties.finalPrompt, "the same image, the same description");
  });

  t.test("shorten -> imagine through MODAL with the client's own prompt", async (t) => {
    const sh = await ib.run("/submit/shorten", { prompt: "an extremely detailed oil painting of a quiet harbour with fishing boats" });
    const r = await ib.post("/submit/action", { taskId: sh.id, customId: "MJ::Job::PromptAnalyzer::3" });
    t.equal((await ib.get(`/task/${r.body.result}/fetch`)).body.status, "MODAL");
    t.equal((await ib.post("/submit/modal", { taskId: r.body.result, prompt: "quiet harbour, boats" })).body.code, 1);
    t.match(await ib.waitFor(r.body.result), { status: "SUCCESS", action: "IMAGINE", prompt: "quiet harbour, boats" });
  });

  t.test("a button of an unfinished task is refused", async (t) => {
    const running = await ib.post("/submit/imagine", { prompt: "still running" });
    const r = await ib.post("/submit/action", { taskId: running.body.result, customId: grid.buttons[0].customId });
    t.match(r, { status: 400, body: { code: 21, description: /has no buttons yet/ } });
  });
});

t.test("remix accounts: variation, reroll and pan wait in MODAL unless the account auto-submits", async (t) => {
  const s = await startIb({ taskMs: 40, imageBot: { accounts: [{ id: "remixer", remix: true }] } });
  t.teardown(() => s.close());
  const ib = client(s);
  const grid = await ib.run("/submit/imagine", { prompt: "remix me" });
  for (const label of ["V2", "🔄"]) {
    const r = await ib.post("/submit/action", { taskId: grid.id, customId: grid.buttons.find((b: { label: string; emoji: string }) => b.label === label || b.emoji === label).customId });
    t.match(r.body, { code: 1, description: "Waiting for window confirm" }, label);
    t.equal((await ib.get(`/task/${r.body.result}/fetch`)).body.status, "MODAL");
    await ib.post("/submit/modal", { taskId: r.body.result, prompt: "remixed prompt" });
    t.match(await ib.waitFor(r.body.result), { status: "SUCCESS", prompt: "remixed prompt" });
  }
  const up = await ib.press(grid, "U1");
  t.equal(up.status, "SUCCESS", "upscale never waits");
  const pan = await ib.post("/submit/action", { taskId: up.id, customId: up.buttons.find((b: { emoji: string }) => b.emoji === "⬅️").customId });
  t.equal((await ib.get(`/task/${pan.body.result}/fetch`)).body.status, "MODAL");
  const zoom = await ib.post("/submit/action", { taskId: up.id, customId: up.buttons.find((b: { label: string }) => b.label === "Zoom Out 2x").customId });
  t.not((await ib.get(`/task/${zoom.body.result}/fetch`)).body.status, "MODAL", "zoom out ignores remix");

  const admin = client(s, "sk-test-admin-0123456789");
  await admin.post("/account/remixer/update", { remixAutoSubmit: true });
  const auto = await ib.post("/submit/action", { taskId: grid.id, customId: grid.buttons.find((b: { label: string }) => b.label === "V3").customId });
  t.match(auto.body, { code: 1, description: "Submit success" });
  t.match(await ib.waitFor(auto.body.result), { status: "SUCCESS", prompt: "remix me" }, "auto-submitted with the parent's prompt");
});
