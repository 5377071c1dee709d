// Fields of the current GenAI SDK that a Gemini upstream must receive as the
// client sent them: image output settings, a voice by name, the newer safety
// category. They used to be dropped (imageConfig, voice) or refused (JAILBREAK).
import t from "tap";
import { GoogleGenAI, HarmBlockThreshold, HarmCategory } from "@google/genai";
import { ADMIN_KEY, ONE_ATTEMPT, startServer, testChannel } from "../../helpers/app.js";
import { fixture, startFakeUpstream } from "../../fixtures/fake-upstream.js";

t.test("imageConfig, speechConfig.voiceConfig.voice and HARM_CATEGORY_JAILBREAK reach a Gemini upstream", async (t) => {
  const gemini = await startFakeUpstream(() => ({ json: fixture("gemini/text.json") }));
  const server = await startServer({
    config: {
      upstream: ONE_ATTEMPT,
      channels: [testChannel("g", "gemini", gemini.url, ["gemini-x"])],
    },
  });
  t.teardown(async () => {
    await server.close();
    await gemini.close();
  });
  const ai = new GoogleGenAI({ apiKey: ADMIN_KEY, httpOptions: { baseUrl: server.baseUrl } });
  const r = await ai.models.generateContent({
    model: "gemini-x",
    contents: "Draw a lighthouse",
    config: {
      imageConfig: { aspectRatio: "16:9", imageSize: "2K" },
      safetySettings: [{ category: HarmCategory.HARM_CATEGORY_JAILBREAK, threshold: HarmBlockThreshold.BLOCK_LOW_AND_ABOVE }],
    },
  });
  t.ok(r.candidates?.length, "answered");
  const body = gemini.requests[0]!.body;
  t.same(body.generationConfig?.imageConfig, { aspectRatio: "16:9", imageSize: "2K" });
  t.same(body.safetySettings, [{ category: "HARM_CATEGORY_JAILBREAK", threshold: "BLOCK_LOW_AND_ABOVE" }]);

  await ai.models.generateContent({ model: "gemini-x", contents: "Say hi", config: { speechConfig: { voiceConfig: { voice: "Puck" } } } });
  t.same(gemini.requests[1]!.body.generationConfig?.speechConfig, { voiceConfig: { voice: "Puck" } });
});

t.test("videoMetadata, a part's mediaResolution, serviceTier, labels and toolConfig.retrievalConfig reach Gemini; other vendors leave them out", async (t) => {
  const gemini = await startFakeUpstream(() => ({ json: fixture("gemini/text.json") }));
  const anthropic = await startFakeUpstream(() => ({ json: fixture("anthropic/message-text.json") }));
  const server = await startServer({
    config: {
      upstream: ONE_ATTEMPT,
      channels: [testChannel("g", "gemini", gemini.url, ["gemini-x"]), testChannel("a", "anthropic", anthropic.url, ["claude-x"])],
    },
  });
  t.teardown(async () => {
    await server.close();
    await Promise.all([gemini.close(), anthropic.close()]);
  });
  const ai = new GoogleGenAI({ apiKey: ADMIN_KEY, httpOptions: { baseUrl: server.baseUrl } });
  const png = Buffer.from("89504e470d0a1a0a", "hex").toString("base64");
  const ask = (model: string) =>
    ai.models.generateContent({
      model,
      contents: [
        {
          role: "user",
          parts: [
            { inlineData: { mimeType: "video/mp4", data: png }, videoMetadata: { startOffset: "1s", endOffset: "5s", fps: 2 } },
            { inlineData: { mimeType: "image/png", data: png }, mediaResolution: { level: "MEDIA_RESOLUTION_HIGH" } as never },
            { text: "Where is this?" },
          ],
        },
      ],
      config: {
        serviceTier: "flex" as never,
        labels: { team: "maps" },
        tools: [{ googleMaps: {} }],
        toolConfig: { retrievalConfig: { latLng: { latitude: 52.37, longitude: 4.89 } }, functionCallingConfig: { mode: "AUTO" as never } },
      } as never,
    });

  const r = await ask("gemini-x");
  t.ok(r.candidates?.length, "answered");
  const body = gemini.requests[0]!.body;
  const parts = body.contents[0].parts;
  t.same(parts[0], { inlineData: { mimeType: "video/mp4", data: png }, videoMetadata: { startOffset: "1s", endOffset: "5s", fps: 2 } }, "the clip settings ride with the video");
  t.same(parts[1], { inlineData: { mimeType: "image/png", data: png }, mediaResolution: { level: "MEDIA_RESOLUTION_HIGH" } });
  t.same(parts[2], { text: "Where is this?" });
  t.equal(body.serviceTier, "flex");
  t.same(body.labels, { team: "maps" });
  t.same(body.toolConfig, { retrievalConfig: { latLng: { latitude: 52.37, longitude: 4.89 } }, functionCallingConfig: { mode: "AUTO" } }, "the location beside the calling mode");

  await ai.models.generateContent({ model: "gemini-x", contents: "hi", config: { toolConfig: { retrievalConfig: { languageCode: "nl" } } } as never });
  t.same(gemini.requests[1]!.body.toolConfig, { retrievalConfig: { languageCode: "nl" } }, "alone too");

  // Anthropic has no video and no Maps: the settings are left out, the rest answered.
  await ai.models.generateContent({
    model: "claude-x",
    contents: [{ role: "user", parts: [{ inlineData: { mimeType: "image/png", data: png }, mediaResolution: { level: "MEDIA_RESOLUTION_HIGH" } as never }, { text: "What is this?" }] }],
    config: { serviceTier: "flex", labels: { team: "maps" }, toolConfig: { retrievalConfig: { languageCode: "nl" } } } as never,
  });
  const a = anthropic.requests[0]!.body;
  t.same(a.messages[0].content[0], { type: "image", source: { type: "base64", media_type: "image/png", data: png } }, "the image without Gemini's setting");
  t.notOk("serviceTier" in a || "labels" in a || "toolConfig" in a || "service_tier" in a, "no Gemini serving hints");
});
