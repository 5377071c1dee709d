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
