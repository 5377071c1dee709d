// Every JSON endpoint of the five wire formats, sent its valid body with one
// field at a time deleted or replaced by a value of another type, size or
// shape, and a set of bodies that are not objects at all (empty, truncated,
// nested 5,000 deep, prototype keys). Whatever the body, the answer is the
// format's own: never a 5xx, always JSON (or an event stream that was
// accepted), and a 4xx in the format's error shape. The valid body itself
// must still be accepted, so a sweep that only ever met a broken base body
// (and so tested nothing past the first check) fails.
import t from "tap";
import { ADMIN_KEY, startServer, type TestServer } from "../helpers/app.js";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const DATA_URL = `data:image/png;base64,${PNG}`;

type Shape = "anthropic" | "gemini" | "openai" | "video-task" | "image-bot";
interface Case {
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  shape: Shape;
  /** The valid body's status (the image-bot actions name a task that does not exist). */
  ok: number;
}

const anthropic = { "x-api-key": ADMIN_KEY, "anthropic-version": "2023-06-01" };
const google = { "x-goog-api-key": ADMIN_KEY };
const bearer = { authorization: `Bearer ${ADMIN_KEY}` };

const messages = {
  model: "claude-sonnet-4-6",
  max_tokens: 2048,
  messages: [
    {
      role: "user",
      content: [
        { type: "text", text: "hi" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
      ],
    },
    { role: "assistant", content: [{ type: "tool_use", id: "tu_1", name: "t", input: { a: 1 } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "tu_1", content: "ok" }] },
  ],
  system: [{ type: "text", text: "s" }],
  tools: [{ name: "t", description: "d", input_schema: { type: "object", properties: { a: { type: "number" } } } }],
  tool_choice: { type: "auto" },
  thinking: { type: "enabled", budget_tokens: 1024 },
  temperature: 0.5,
  stop_sequences: ["x"],
  metadata: { user_id: "u" },
};
const { max_tokens: _unused, ...countTokens } = messages;
const generate = {
  contents: [
    { role: "user", parts: [{ text: "hi" }, { inlineData: { mimeType: "image/png", data: PNG } }] },
    { role: "model", parts: [{ functionCall: { name: "f", args: { a: 1 } } }] },
    { role: "user", parts: [{ functionResponse: { name: "f", response: { r: 1 } } }] },
  ],
  systemInstruction: { parts: [{ text: "s" }] },
  tools: [{ functionDeclarations: [{ name: "f", description: "d", parameters: { type: "OBJECT", properties: { a: { type: "NUMBER" } } } }] }],
  toolConfig: { functionCallingConfig: { mode: "AUTO" } },
  generationConfig: { temperature: 0.5, maxOutputTokens: 64, stopSequences: ["x"], responseMimeType: "application/json", responseSchema: { type: "OBJECT", properties: { a: { type: "STRING" } } } },
  safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE" }],
};

const CASES: Case[] = [
  { path: "/v1/messages", headers: anthropic, body: messages, shape: "anthropic", ok: 200 },
  { path: "/v1/messages", headers: anthropic, body: { ...messages, stream: true }, shape: "anthropic", ok: 200 },
  { path: "/v1/messages/count_tokens", headers: anthropic, body: countTokens, shape: "anthropic", ok: 200 },
  { path: "/v1beta/models/gemini-2.5-flash:generateContent", headers: google, body: generate, shape: "gemini", ok: 200 },
  { path: "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", headers: google, body: generate, shape: "gemini", ok: 200 },
  { path: "/v1beta/models/gemini-2.5-flash:countTokens", headers: google, body: { contents: generate.contents }, shape: "gemini", ok: 200 },
  { path: "/v1/images/generations", headers: bearer, body: { model: "dall-e-2", prompt: "cat", n: 1, size: "256x256", response_format: "b64_json", user: "u" }, shape: "openai", ok: 200 },
  { path: "/ib/submit/imagine", headers: bearer, body: { prompt: "cat --ar 1:1", base64Array: [DATA_URL], state: "s" }, shape: "image-bot", ok: 200 },
  { path: "/ib/submit/blend", headers: bearer, body: { base64Array: [DATA_URL, DATA_URL], dimensions: "SQUARE", state: "s" }, shape: "image-bot", ok: 200 },
  { path: "/ib/submit/describe", headers: bearer, body: { base64: DATA_URL, state: "s" }, shape: "image-bot", ok: 200 },
  { path: "/ib/submit/action", headers: bearer, body: { taskId: "1234", customId: "MJ::JOB::upsample::1::abc", state: "s" }, shape: "image-bot", ok: 404 },
  { path: "/ib/submit/modal", headers: bearer, body: { taskId: "1234", prompt: "p", maskBase64: DATA_URL }, shape: "image-bot", ok: 404 },
  { path: "/v1/video/generations", headers: bearer, body: { model: "kling-v1", prompt: "a cat", duration: 1, size: "160x90", fps: 8, seed: 1234 }, shape: "video-task", ok: 200 },
  { path: "/v1/videos", headers: bearer, body: { model: "sora-2", prompt: "a cat", seconds: "1", size: "160x90" }, shape: "openai", ok: 200 },
];

/** Values of every JSON type, out of range, too long, or an image that is not one. */
const REPLACEMENTS: unknown[] = [null, -1, 1.5, 1e308, "", "x".repeat(70_000), true, [], {}, [null], { a: { b: [] } }, "data:image/png;base64,@@@"];
/** Bodies that are not a usable object. */
const RAW = ["", "null", "[]", "1", '"s"', "{", "[".repeat(5000) + "]".repeat(5000), `{"a":${"[".repeat(3000)}${"]".repeat(3000)}}`, '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}'];

/** Every key path of a JSON value. */
function paths(v: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (!v || typeof v !== "object") return [];
  const keys = Array.isArray(v) ? v.map((_, i) => i) : Object.keys(v);
  return keys.flatMap((k) => [[...at, k], ...paths((v as Record<string | number, unknown>)[k], [...at, k])]);
}

/** A copy of `body` with the value at `at` replaced, or deleted when `value` is DELETE. */
const DELETE = Symbol("delete");
function mutate(body: unknown, at: (string | number)[], value: unknown): unknown {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let o = copy;
  for (const k of at.slice(0, -1)) o = o[k] as Record<string | number, unknown>;
  const last = at.at(-1)!;
  if (value !== DELETE) o[last] = value;
  else if (Array.isArray(o)) o.splice(Number(last), 1);
  else delete o[last];
  return copy;
}

/** Why a 4xx body is not in the format's error shape, or undefined when it is. */
function shapeProblem(shape: Shape, status: number, b: Record<string, unknown>): string | undefined {
  const obj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);
  switch (shape) {
    case "anthropic":
      return b.type === "error" && obj(b.error) && typeof b.error.type === "string" && typeof b.error.message === "string" ? undefined : "not {type: error, error: {type, message}}";
    case "gemini":
      return obj(b.error) && b.error.code === status && typeof b.error.message === "string" && typeof b.error.status === "string" ? undefined : "not {error: {code, message, status}}";
    case "openai":
      return obj(b.error) && typeof b.error.message === "string" && typeof b.error.type === "string" && "param" in b.error && "code" in b.error
        ? undefined
        : "not {error: {message, type, param, code}}";
    case "video-task":
      return Object.keys(b).sort().join() === "code,message,param,type" && typeof b.message === "string" ? undefined : "not {code, message, param, type}";
    case "image-bot":
      return typeof b.code === "number" && typeof b.description === "string" ? undefined : "not {code, description}";
  }
}

let server: TestServer;
t.before(async () => {
  server = await startServer({ config: { local: { taskMs: 50 }, imageBot: { tileSize: 32 } } as never });
});
t.teardown(() => server.close());

interface Outcome {
  status: number;
  problem?: string;
}

async function send(c: Case, body: string, contentType: string | null = "application/json"): Promise<Outcome> {
  let res: Response;
  let text: string;
  try {
    res = await fetch(server.baseUrl + c.path, { method: "POST", headers: { ...c.headers, ...(contentType ? { "content-type": contentType } : {}) }, body, signal: AbortSignal.timeout(30_000) });
    text = await res.text();
  } catch (err) {
    return { status: 0, problem: `no answer: ${String(err)}` };
  }
  if (res.status >= 500) return { status: res.status, problem: `${res.status}: ${text.slice(0, 200)}` };
  if ((res.headers.get("content-type") ?? "").includes("text/event-stream")) return { status: res.status, ...(res.status === 200 ? {} : { problem: `an event stream with ${res.status}` }) };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { status: res.status, problem: `not JSON: ${text.slice(0, 200)}` };
  }
  if (res.status >= 400) {
    const p = shapeProblem(c.shape, res.status, json as Record<string, unknown>);
    if (p) return { status: res.status, problem: `${res.status} ${p}: ${text.slice(0, 200)}` };
  }
  return { status: res.status };
}

for (const c of CASES) {
  t.test(`${c.path}${"stream" in c.body ? " (stream)" : ""}`, async (t) => {
    const base = await send(c, JSON.stringify(c.body));
    t.same(base, { status: c.ok }, "the valid body is accepted");

    const bodies: [string, string, string | null][] = RAW.map((r) => [r, `raw ${r.slice(0, 24)}`, "application/json"]);
    bodies.push([JSON.stringify(c.body), "as text/plain", "text/plain"], [JSON.stringify(c.body), "without a content type", null]);
    for (const at of paths(c.body)) {
      bodies.push([JSON.stringify(mutate(c.body, at, DELETE)), `${at.join(".")} deleted`, "application/json"]);
      for (const v of REPLACEMENTS) bodies.push([JSON.stringify(mutate(c.body, at, v)), `${at.join(".")} = ${JSON.stringify(v).slice(0, 24)}`, "application/json"]);
    }
    const problems: string[] = [];
    const statuses = new Map<number, number>();
    // Four at a time: enough to overlap the local engine's work, few enough to keep the machine for the rest of the suite.
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < bodies.length) {
          const [body, what, ct] = bodies[next++]!;
          const o = await send(c, body, ct);
          statuses.set(o.status, (statuses.get(o.status) ?? 0) + 1);
          if (o.problem) problems.push(`${what}: ${o.problem}`);
        }
      }),
    );
    t.same(problems.slice(0, 10), [], `${bodies.length} bodies, each answered in the format's own way (statuses: ${JSON.stringify(Object.fromEntries(statuses))})`);
    t.ok((statuses.get(400) ?? 0) > 0, "and some of them refused with a 400");
  });
}
