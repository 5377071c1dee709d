// The cachedContents resource through both SDK generations (caches.create/get/
// list/update/delete), and generating with a cache as context.
import t from "tap";
import { ADMIN_KEY, startServer, type TestServer } from "../../helpers/app.js";
import { MODEL, SDKS, apiError, statusOf, violations } from "./sdks.js";

let clock = Date.UTC(2026, 2, 1, 12);
let server: TestServer;
t.before(async () => {
  server = await startServer({ now: () => clock });
});
t.teardown(() => server.close());

const HANDBOOK = "The handbook says that every Friday is pizza day, that Mondays start at ten, and that the office cat is called Biscuit.";

for (const sdk of SDKS) {
  t.test(sdk.name, async (t) => {
    const ai = sdk.client(server.baseUrl, ADMIN_KEY);

    t.test("create, get, list, update, generate with it, delete", async (t) => {
      const made = await ai.caches.create({
        model: MODEL,
        config: {
          displayName: "handbook",
          systemInstruction: "You answer from the handbook.",
          contents: [
            { role: "user", parts: [{ text: HANDBOOK }] },
            { role: "model", parts: [{ text: "Understood." }] },
          ],
          tools: [{ functionDeclarations: [{ name: "lookup", parameters: { type: "OBJECT", properties: { topic: { type: "STRING" } }, required: ["topic"] } }] }],
          ttl: "600s",
        } as never,
      });
      t.match(made.name, /^cachedContents\/[a-z0-9]+$/);
      t.equal(made.model, "models/gemini-2.5-flash");
      t.equal(made.displayName, "handbook");
      t.equal(Date.parse(made.createTime!), clock);
      t.equal(Date.parse(made.expireTime!) - Date.parse(made.createTime!), 600_000, "ttl 600s");
      t.ok(made.usageMetadata!.totalTokenCount! > 20, "the cache's token count");
      const raw = (await (await fetch(`${server.baseUrl}/${sdk.version}/${made.name}?key=${ADMIN_KEY}`)).json()) as Record<string, unknown>;
      t.same(
        (raw.contents as { role: string }[]).map((c) => c.role),
        ["user", "model"],
      );
      t.same(raw.systemInstruction, { parts: [{ text: "You answer from the handbook." }] });
      t.same(
        raw.tools,
        [{ functionDeclarations: [{ name: "lookup", parameters: { type: "OBJECT", properties: { topic: { type: "STRING" } }, required: ["topic"] } }] }],
        "tools come back in Gemini's Schema form",
      );

      const got = await ai.caches.get({ name: made.name! });
      t.equal(got.name, made.name);
      t.equal(got.usageMetadata!.totalTokenCount, made.usageMetadata!.totalTokenCount);

      const names: string[] = [];
      for await (const c of await ai.caches.list({ config: { pageSize: 1 } })) names.push(c.name!);
      t.ok(names.includes(made.name!), "listed");

      clock += 60_000;
      const updated = await ai.caches.update({ name: made.name!, config: { ttl: "7200s" } });
      t.equal(Date.parse(updated.expireTime!), clock + 7_200_000);
      t.equal(Date.parse(updated.updateTime!), clock);
      const until = new Date(clock + 3_600_000).toISOString();
      const absolute = await ai.caches.update({ name: made.name!, config: { expireTime: until } });
      t.equal(absolute.expireTime, until);

      const question = "When is pizza day?";
      const alone = await ai.models.countTokens({ model: MODEL, contents: question });
      const r = await ai.models.generateContent({ model: MODEL, contents: question, config: { cachedContent: made.name! } });
      t.equal(r.text, "You said: When is pizza day?");
      t.equal(r.usageMetadata!.cachedContentTokenCount, made.usageMetadata!.totalTokenCount, "cachedContentTokenCount");
      t.equal(r.usageMetadata!.promptTokenCount, alone.totalTokens! + made.usageMetadata!.totalTokenCount!, "promptTokenCount includes the cached part");
      t.equal(r.usageMetadata!.cacheTokensDetails?.[0]?.tokenCount, made.usageMetadata!.totalTokenCount);

      const tool = await ai.models.generateContent({ model: MODEL, contents: "please lookup pizza", config: { cachedContent: made.name! } });
      t.equal(tool.functionCalls?.[0]?.name, "lookup", "the cached tools are in effect");

      const chunks = [];
      for await (const c of await ai.models.generateContentStream({ model: MODEL, contents: question, config: { cachedContent: made.name! } })) chunks.push(c);
      t.equal(chunks.at(-1)!.usageMetadata!.cachedContentTokenCount, made.usageMetadata!.totalTokenCount, "streams report it too");

      const counted = await fetch(`${server.baseUrl}/${sdk.version}/models/${MODEL}:countTokens`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-goog-api-key": ADMIN_KEY },
        body: JSON.stringify({ generateContentRequest: { model: `models/${MODEL}`, contents: [{ role: "user", parts: [{ text: question }] }], cachedContent: made.name } }),
      });
      const ct = (await counted.json()) as { totalTokens: number; cachedContentTokenCount: number };
      t.same(ct, { ...ct, totalTokens: r.usageMetadata!.promptTokenCount, cachedContentTokenCount: made.usageMetadata!.totalTokenCount });

      await ai.caches.delete({ name: made.name! });
      t.equal((await apiError(ai.caches.get({ name: made.name! }))).status, 404);
      const after = await apiError(ai.models.generateContent({ model: MODEL, contents: question, config: { cachedContent: made.name! } }));
      t.equal(after.status, 404);
      t.equal(violations(statusOf(after).details)[0]?.field, "cachedContent");
    });

    t.test("expired caches are gone", async (t) => {
      const made = await ai.caches.create({ model: MODEL, config: { contents: HANDBOOK, ttl: "30s" } });
      clock += 31_000;
      const err = await apiError(ai.caches.get({ name: made.name! }));
      t.equal(err.status, 404);
      t.equal(statusOf(err).status, "NOT_FOUND");
    });

    t.test("bad cache requests", async (t) => {
      const wrongModel = await ai.caches.create({ model: MODEL, config: { contents: HANDBOOK } });
      const mismatch = await apiError(ai.models.generateContent({ model: "gemini-2.5-pro", contents: "hi", config: { cachedContent: wrongModel.name! } }));
      t.equal(mismatch.status, 400);
      t.equal(violations(statusOf(mismatch).details)[0]?.field, "cachedContent");
      const badTtl = await fetch(`${server.baseUrl}/${sdk.version}/cachedContents?key=${ADMIN_KEY}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "models/gemini-2.5-flash", contents: [{ role: "user", parts: [{ text: "x" }] }], ttl: "one hour" }),
      });
      t.equal(badTtl.status, 400);
      t.equal(violations(((await badTtl.json()) as { error: { details: Record<string, unknown>[] } }).error.details)[0]?.field, "ttl");
      const noModel = await fetch(`${server.baseUrl}/${sdk.version}/cachedContents?key=${ADMIN_KEY}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "x" }] }] }),
      });
      t.equal(noModel.status, 400);
      const badMask = await fetch(`${server.baseUrl}/${sdk.version}/${wrongModel.name}?updateMask=displayName&key=${ADMIN_KEY}`, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ttl: "60s" }),
      });
      t.equal(badMask.status, 400);
      t.equal(violations(((await badMask.json()) as { error: { details: Record<string, unknown>[] } }).error.details)[0]?.field, "updateMask");
      const masked = await fetch(`${server.baseUrl}/${sdk.version}/${wrongModel.name}?updateMask=ttl&key=${ADMIN_KEY}`, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ttl: "60s", displayName: "ignored" }),
      });
      t.equal(masked.status, 200);
      t.equal(Date.parse(((await masked.json()) as { expireTime: string }).expireTime), clock + 60_000);
      await ai.caches.delete({ name: wrongModel.name! });
    });
  });
}
