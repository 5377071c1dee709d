// Prompts with characters XML cannot hold (controls, U+FFFF): the local
// engine sets the prompt as SVG text, and every such task must still draw its
// grid, with no library text in failReason. Half a surrogate pair is refused
// at the edge, as in every JSON format (the neutral model cannot hold it).
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

t.test("imagine with half a surrogate pair in the prompt: a 400 naming it", async (t) => {
  const sub = await ib.post("/submit/imagine", `{"prompt":"a\\ud800b fox"}`, true);
  t.equal(sub.status, 400);
  t.match(sub.body, { code: Number, description: /\$\.prompt holds an unpaired UTF-16 surrogate/ });
});
