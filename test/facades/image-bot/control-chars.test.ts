// Prompts with characters XML cannot hold (controls, U+FFFF, lone surrogates):
// the local engine sets the prompt as SVG text, and every such task must still
// draw its grid, with no library text in failReason.
import t from "tap";
import { client, download, startIb } from "./ib-helpers.js";

const s = await startIb({ taskMs: 0 });
t.teardown(() => s.close());
const ib = client(s);

for (const [name, escaped] of [
  ["U+0001", "\\u0001"],
  ["NUL", "\\u0000"],
  ["U+001F", "\\u001f"],
  ["U+FFFF", "\\uffff"],
  ["a lone surrogate", "\\ud800"],
]) {
  t.test(`imagine with ${name} in the prompt draws its grid`, async (t) => {
    // Sent as raw JSON so the escape reaches the gateway as written.
    const sub = await ib.post("/submit/imagine", `{"prompt":"a${escaped}b fox ${escaped}"}`, true);
    t.equal(sub.body.code, 1, "accepted");
    const task = await ib.waitFor(sub.body.result);
    t.match(task, { status: "SUCCESS", failReason: "" });
    const img = await download(task.imageUrl);
    t.equal(img.status, 200);
    t.ok(img.width > 0 && img.height > 0, "a real image");
  });
}
