// The generate-content facade through both official GenAI SDK generations
// (2.x on /v1beta, 3.x on /v1), against a real gateway with the local engine.
import t from "tap";
import { Ajv } from "ajv";
import { ADMIN_KEY, startServer, type TestServer } from "../../helpers/app.js";
import { MODEL, SDKS, apiError, statusOf, violations } from "./sdks.js";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

let server: TestServer;
t.before(async () => {
  server = await startServer();
});
t.teardown(() => server.close());

const weather = {
  name: "get_weather",
  description: "Current weather for a city",
  parameters: { type: "OBJECT", properties: { city: { type: "STRING", description: "City name" } }, required: ["city"] },
};
const time = {
  name: "get_time",
  description: "Current time in a time zone",
  parameters: { type: "OBJECT", properties: { zone: { type: "STRING" } }, required: ["zone"] },
};

for (const sdk of SDKS) {
  t.test(sdk.name, async (t) => {
    const ai = sdk.client(server.baseUrl, ADMIN_KEY);

    t.test("plain text", async (t) => {
      const r = await ai.models.generateContent({ model: MODEL, contents: "hello there" });
      t.equal(r.text, "You said: hello there");
      const c = r.candidates![0]!;
      t.equal(c.content!.role, "model");
      t.equal(c.finishReason, "STOP");
      t.equal(c.index, 0);
      t.ok(c.safetyRatings!.length > 0, "safety ratings");
      t.equal(r.modelVersion, "omnigate-local-1");
      t.match(r.responseId, /\S+/);
      const u = r.usageMetadata!;
      t.ok(u.promptTokenCount! > 0);
      t.ok(u.candidatesTokenCount! > 0);
      t.equal(u.totalTokenCount, u.promptTokenCount! + u.candidatesTokenCount!);
      t.same(u.promptTokensDetails, [{ modality: "TEXT", tokenCount: u.promptTokenCount }]);
      const counted = await ai.models.countTokens({ model: MODEL, contents: "hello there" });
      t.equal(counted.totalTokens, u.promptTokenCount, "countTokens agrees with usage");
    });

    t.test("system instruction and multi-turn", async (t) => {
      const plain = await ai.models.generateContent({ model: MODEL, contents: "status?" });
      const withSystem = await ai.models.generateContent({ model: MODEL, contents: "status?", config: { systemInstruction: "You are a terse ship's computer." } });
      t.ok(withSystem.usageMetadata!.promptTokenCount! > plain.usageMetadata!.promptTokenCount!, "the system instruction is part of the prompt");
      const r = await ai.models.generateContent({
        model: MODEL,
        contents: [
          { role: "user", parts: [{ text: "My name is Ada." }] },
          { role: "model", parts: [{ text: "Hello Ada." }] },
          { role: "user", parts: [{ text: "What is my name?" }] },
        ],
      });
      t.equal(r.text, "You said: What is my name?", "answers the last user turn");
      t.ok(r.usageMetadata!.promptTokenCount! > withSystem.usageMetadata!.promptTokenCount!);
    });

    t.test("image input (inlineData)", async (t) => {
      const r = await ai.models.generateContent({
        model: MODEL,
        contents: [{ role: "user", parts: [{ text: "describe this" }, { inlineData: { mimeType: "image/png", data: PNG } }] }],
      });
      t.equal(r.text, "You said: describe this");
      const image = r.usageMetadata!.promptTokensDetails!.find((d) => d.modality === "IMAGE");
      t.equal(image?.tokenCount, 258, "the image is counted as an image");
    });

    t.test("function calling round trip", async (t) => {
      const config = { tools: [{ functionDeclarations: [weather, time] }] } as never;
      const first = await ai.models.generateContent({ model: MODEL, contents: "Use get_weather for Paris please", config });
      const calls = first.functionCalls!;
      t.equal(calls.length, 1);
      t.equal(calls[0]!.name, "get_weather");
      t.type(calls[0]!.args!.city, "string");
      t.match(calls[0]!.id, /\S/, "calls carry an id");
      t.equal(first.candidates![0]!.finishReason, "STOP", "a function call ends with STOP");
      const second = await ai.models.generateContent({
        model: MODEL,
        contents: [
          { role: "user", parts: [{ text: "Use get_weather for Paris please" }] },
          first.candidates![0]!.content!,
          { role: "user", parts: [{ functionResponse: { id: calls[0]!.id, name: "get_weather", response: { temperature: 21, sky: "clear" } } }] },
        ],
        config,
      });
      t.match(second.text, /^The tool get_weather returned: .*21/);
      t.equal(second.functionCalls, undefined);
    });

    t.test("forced function calling (ANY + allowedFunctionNames)", async (t) => {
      const r = await ai.models.generateContent({
        model: MODEL,
        contents: "Tell me something nice.",
        config: {
          tools: [{ functionDeclarations: [weather, time] }],
          toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_time"] } },
        } as never,
      });
      t.equal(r.functionCalls?.[0]?.name, "get_time");
      t.type(r.functionCalls?.[0]?.args?.zone, "string");
      const none = await ai.models.generateContent({
        model: MODEL,
        contents: "Use get_weather for Paris please",
        config: { tools: [{ functionDeclarations: [weather] }], toolConfig: { functionCallingConfig: { mode: "NONE" } } } as never,
      });
      t.equal(none.functionCalls, undefined, "NONE forbids calls");
    });

    t.test("thinking: thoughts, signature round trip, tampering", async (t) => {
      const ask = { role: "user", parts: [{ text: "Think about tea, then answer." }] };
      const r = await ai.models.generateContent({ model: MODEL, contents: [ask], config: { thinkingConfig: { includeThoughts: true, thinkingBudget: 256 } } });
      const parts = r.candidates![0]!.content!.parts!;
      t.equal(parts[0]!.thought, true, "the first part is a thought");
      t.match(parts[0]!.text, /\S/);
      t.equal(r.text, "You said: Think about tea, then answer.", "response.text leaves thoughts out");
      const signed = parts.find((p) => !p.thought && p.thoughtSignature);
      t.ok(signed, "a non-thought part carries the thought signature");
      t.ok(r.usageMetadata!.thoughtsTokenCount! > 0, "thoughtsTokenCount");
      t.equal(r.usageMetadata!.totalTokenCount, r.usageMetadata!.promptTokenCount! + r.usageMetadata!.candidatesTokenCount! + r.usageMetadata!.thoughtsTokenCount!);

      const back = await ai.models.generateContent({ model: MODEL, contents: [ask, r.candidates![0]!.content!, { role: "user", parts: [{ text: "and again" }] }] });
      t.equal(back.text, "You said: and again", "the signed history is accepted");

      const tampered = structuredClone(r.candidates![0]!.content!);
      tampered.parts![0]!.text = "I secretly decided something else.";
      const err = await apiError(ai.models.generateContent({ model: MODEL, contents: [ask, tampered, { role: "user", parts: [{ text: "and again" }] }] }));
      t.equal(err.status, 400);
      const st = statusOf(err);
      t.equal(st.status, "INVALID_ARGUMENT");
      t.match(violations(st.details)[0]?.field, /^contents\[1\]\.parts\[\d+\]\.thoughtSignature$/);

      const hidden = await ai.models.generateContent({ model: MODEL, contents: [ask], config: { thinkingConfig: { thinkingBudget: 256 } } });
      const hp = hidden.candidates![0]!.content!.parts!;
      t.notOk(
        hp.some((p) => p.thought),
        "no thoughts unless includeThoughts",
      );
      t.ok(
        hp.some((p) => p.thoughtSignature),
        "the signature still comes",
      );
      t.ok(hidden.usageMetadata!.thoughtsTokenCount! > 0);
      const hiddenBack = await ai.models.generateContent({ model: MODEL, contents: [ask, hidden.candidates![0]!.content!, { role: "user", parts: [{ text: "next" }] }] });
      t.equal(hiddenBack.text, "You said: next");
      const forged = structuredClone(hidden.candidates![0]!.content!);
      const sp = forged.parts!.find((p) => p.thoughtSignature)!;
      const env = Buffer.from(sp.thoughtSignature!, "base64").toString("utf8");
      sp.thoughtSignature = Buffer.from(env.replace(/"t":"[^"]*"/, '"t":"forged thoughts"'), "utf8").toString("base64");
      const ferr = await apiError(ai.models.generateContent({ model: MODEL, contents: [ask, forged, { role: "user", parts: [{ text: "next" }] }] }));
      t.equal(ferr.status, 400, "a forged hidden thought is refused");
    });

    t.test("a tool round trip with the thoughts dropped from the history, as Gemini CLI sends it", async (t) => {
      const ask = { role: "user", parts: [{ text: "Use get_weather for Paris please" }] };
      const config = { tools: [{ functionDeclarations: [weather] }], thinkingConfig: { includeThoughts: true } } as never;
      const r = await ai.models.generateContent({ model: MODEL, contents: [ask], config });
      const content = r.candidates![0]!.content!;
      const call = content.parts!.find((p) => p.functionCall)!;
      t.ok(call.thoughtSignature, "the call carries the thought's signature");
      // Gemini CLI: parts.filter((p) => !p.thought)
      const kept = { role: "model", parts: content.parts!.filter((p) => !p.thought) };
      const result = { role: "user", parts: [{ functionResponse: { name: "get_weather", response: { temperature: 18 } } }] };
      const next = await ai.models.generateContent({ model: MODEL, contents: [ask, kept, result], config });
      t.ok(next.candidates?.length, "the history without thoughts is accepted");
      const forged = structuredClone(kept);
      const fp = forged.parts!.find((p) => p.functionCall)!;
      const wire = Buffer.from(fp.thoughtSignature!, "base64").toString("utf8");
      fp.thoughtSignature = Buffer.from(
        wire.replace(/:t1\.(.)/, (_m, c: string) => `:t1.${c === "A" ? "B" : "A"}`),
        "utf8",
      ).toString("base64");
      t.not(fp.thoughtSignature, call.thoughtSignature, "the signature was altered");
      const err = await apiError(ai.models.generateContent({ model: MODEL, contents: [ask, forged, result], config }));
      t.equal(err.status, 400, "an altered signature is still refused");
      t.equal(statusOf(err).status, "INVALID_ARGUMENT");
    });

    t.test("the SDK's chat keeps signed history, streamed or not", async (t) => {
      for (const includeThoughts of [true, false]) {
        const chat = ai.chats.create({ model: MODEL, config: { thinkingConfig: { includeThoughts, thinkingBudget: 128 } } });
        const first = [];
        for await (const c of await chat.sendMessageStream({ message: "first question" })) first.push(c);
        t.equal(first.map((c) => c.text ?? "").join(""), "You said: first question");
        const second = await chat.sendMessage({ message: "second question" });
        t.equal(second.text, "You said: second question", `includeThoughts ${includeThoughts}: streamed history goes back signed`);
        const third = [];
        for await (const c of await chat.sendMessageStream({ message: "third question" })) third.push(c);
        t.equal(third.map((c) => c.text ?? "").join(""), "You said: third question");
        t.equal(chat.getHistory().length >= 6, true, "the chat kept every turn");
      }
    });

    t.test("streaming with generateContentStream", async (t) => {
      const whole = await ai.models.generateContent({ model: MODEL, contents: "please stream a few words back to me" });
      const chunks = [];
      for await (const c of await ai.models.generateContentStream({ model: MODEL, contents: "please stream a few words back to me" })) chunks.push(c);
      t.ok(chunks.length > 2, `several chunks (${chunks.length})`);
      t.equal(chunks.map((c) => c.text ?? "").join(""), whole.text);
      const last = chunks.at(-1)!;
      t.equal(last.candidates![0]!.finishReason, "STOP", "the last chunk has the finish reason");
      t.notOk(
        chunks.slice(0, -1).some((c) => c.candidates?.[0]?.finishReason),
        "earlier chunks have none",
      );
      t.same(last.usageMetadata, whole.usageMetadata, "final usage equals the whole answer's");
      t.equal(chunks[0]!.usageMetadata!.promptTokenCount, whole.usageMetadata!.promptTokenCount, "early chunks carry the prompt count");
      t.equal(new Set(chunks.map((c) => c.responseId)).size, 1, "one responseId");
    });

    t.test("streaming a function call and thoughts", async (t) => {
      const chunks = [];
      const stream = await ai.models.generateContentStream({
        model: MODEL,
        contents: "Use get_weather for Paris please",
        config: { tools: [{ functionDeclarations: [weather] }], thinkingConfig: { includeThoughts: true } } as never,
      });
      for await (const c of stream) chunks.push(c);
      const parts = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []);
      t.ok(
        parts.some((p) => p.thought),
        "thought chunks",
      );
      const calls = parts.filter((p) => p.functionCall);
      t.equal(calls.length, 1, "the call comes whole, once");
      t.equal(calls[0]!.functionCall!.name, "get_weather");
      t.type(calls[0]!.functionCall!.args!.city, "string");
      t.ok(calls[0]!.thoughtSignature, "the call carries the thought signature");
      t.equal(chunks.at(-1)!.candidates![0]!.finishReason, "STOP");
    });

    t.test("JSON output with responseSchema", async (t) => {
      const schema = {
        type: "OBJECT",
        properties: {
          name: { type: "STRING" },
          age: { type: "INTEGER", minimum: 0 },
          tags: { type: "ARRAY", items: { type: "STRING" }, minItems: 1 },
          mood: { type: "STRING", enum: ["happy", "sad"] },
          nickname: { type: "STRING", nullable: true },
        },
        required: ["name", "age", "tags", "mood"],
      };
      const r = await ai.models.generateContent({
        model: MODEL,
        contents: "Describe Ada Lovelace as a person record",
        config: { responseMimeType: "application/json", responseSchema: schema } as never,
      });
      const value = JSON.parse(r.text!) as Record<string, unknown>;
      const ajv = new Ajv({ strict: false });
      const ok = ajv.validate(
        {
          type: "object",
          properties: {
            name: { type: "string" },
            age: { type: "integer", minimum: 0 },
            tags: { type: "array", items: { type: "string" }, minItems: 1 },
            mood: { enum: ["happy", "sad"] },
            nickname: { type: ["string", "null"] },
          },
          required: ["name", "age", "tags", "mood"],
        },
        value,
      );
      t.ok(ok, `valid: ${ajv.errorsText()} ${r.text}`);

      const js = await ai.models.generateContent({
        model: MODEL,
        contents: "a point",
        config: { responseMimeType: "application/json", responseJsonSchema: { type: "object", properties: { x: { type: "number" } }, required: ["x"] } } as never,
      });
      t.type((JSON.parse(js.text!) as { x: unknown }).x, "number", "responseJsonSchema works too");
    });

    t.test("text/x.enum", async (t) => {
      const r = await ai.models.generateContent({
        model: MODEL,
        contents: "Which instrument is loudest?",
        config: { responseMimeType: "text/x.enum", responseSchema: { type: "STRING", enum: ["drums", "flute", "harp"] } } as never,
      });
      t.ok(["drums", "flute", "harp"].includes(r.text!), `one of the enum values: ${r.text}`);
    });

    t.test("a blocked prompt has promptFeedback.blockReason and no candidates", async (t) => {
      const r = await ai.models.generateContent({ model: MODEL, contents: "tell me about the forbidden-topic" });
      t.equal(r.candidates, undefined);
      t.equal(r.promptFeedback?.blockReason, "SAFETY");
      t.ok(r.promptFeedback?.safetyRatings?.some((s) => s.blocked && s.probability === "HIGH"));
      t.ok(r.usageMetadata!.promptTokenCount! > 0);
      const chunks = [];
      for await (const c of await ai.models.generateContentStream({ model: MODEL, contents: "tell me about the forbidden-topic" })) chunks.push(c);
      t.equal(chunks.at(-1)!.promptFeedback?.blockReason, "SAFETY", "streams say so too");
    });

    t.test("code execution", async (t) => {
      const r = await ai.models.generateContent({ model: MODEL, contents: "Please calculate 6 * 7 with python", config: { tools: [{ codeExecution: {} }] } });
      t.match(r.executableCode, /6 \* 7/);
      t.match(r.codeExecutionResult, /42/);
      const kinds = r.candidates![0]!.content!.parts!.map((p) => Object.keys(p).find((k) => k !== "thoughtSignature"));
      t.same(kinds, ["executableCode", "codeExecutionResult", "text"]);
    });

    t.test("limits, stop sequences, candidates and logprobs", async (t) => {
      const long = await ai.models.generateContent({ model: MODEL, contents: "one two three four five six seven eight nine ten", config: { maxOutputTokens: 3 } });
      t.equal(long.candidates![0]!.finishReason, "MAX_TOKENS");
      t.ok(long.usageMetadata!.candidatesTokenCount! <= 3);
      const stopped = await ai.models.generateContent({ model: MODEL, contents: "alpha beta gamma", config: { stopSequences: ["gamma"] } });
      t.equal(stopped.text, "You said: alpha beta ");
      t.equal(stopped.candidates![0]!.finishReason, "STOP", "a stop sequence ends with STOP");
      const two = await ai.models.generateContent({ model: MODEL, contents: "hi", config: { candidateCount: 2 } });
      t.same(
        two.candidates!.map((c) => c.index),
        [0, 1],
      );
      const lp = await ai.models.generateContent({ model: MODEL, contents: "hi", config: { responseLogprobs: true, logprobs: 2 } });
      const res = lp.candidates![0]!.logprobsResult!;
      t.ok(res.chosenCandidates!.length > 0);
      t.equal(res.topCandidates!.length, res.chosenCandidates!.length);
      t.type(lp.candidates![0]!.avgLogprobs, "number");
      const streamed = [];
      for await (const c of await ai.models.generateContentStream({ model: MODEL, contents: "hi", config: { responseLogprobs: true, logprobs: 2 } })) streamed.push(c);
      const lastCand = streamed.at(-1)!.candidates![0]!;
      t.same(lastCand.logprobsResult, res, "streams give the same logprobs");
      t.ok(Math.abs(lastCand.avgLogprobs! - lp.candidates![0]!.avgLogprobs!) < 1e-9, "and the same average");
    });

    t.test("models list and get", async (t) => {
      const names: string[] = [];
      const pager = await ai.models.list({ config: { pageSize: 2 } });
      for await (const m of pager) names.push(m.name!);
      t.ok(names.includes("models/gemini-2.5-flash"), names.join(","));
      t.ok(names.length > 2, "paged through more than one page");
      const m = await ai.models.get({ model: MODEL });
      t.equal(m.name, "models/gemini-2.5-flash");
      t.equal(m.displayName, "Gemini 2.5 Flash");
      t.ok(m.supportedActions!.includes("generateContent"));
      t.ok(m.inputTokenLimit! > 0);
      const missing = await apiError(ai.models.get({ model: "no-such-model" }));
      t.equal(missing.status, 404);
    });

    t.test("snake_case request spellings", async (t) => {
      const res = await fetch(`${server.baseUrl}/${sdk.version}/models/${MODEL}:generateContent?key=${ADMIN_KEY}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          system_instruction: { parts: [{ text: "be brief" }] },
          contents: [{ role: "user", parts: [{ text: "snake" }, { inline_data: { mime_type: "image/png", data: PNG } }] }],
          generation_config: { max_output_tokens: 50, response_mime_type: "text/plain", thinking_config: { include_thoughts: true } },
          tool_config: { function_calling_config: { mode: "AUTO" } },
          tools: [{ function_declarations: [{ name: "lookup", parameters: { type: "OBJECT", properties: { some_key: { type: "STRING" } } } }] }],
          safety_settings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_ONLY_HIGH" }],
        }),
      });
      t.equal(res.status, 200);
      const body = (await res.json()) as { candidates: { content: { parts: { text?: string; thought?: boolean }[] } }[]; usageMetadata: { promptTokensDetails: { modality: string }[] } };
      t.ok(body.candidates[0]!.content.parts[0]!.thought, "thinking_config.include_thoughts was read");
      t.ok(
        body.usageMetadata.promptTokensDetails.some((d) => d.modality === "IMAGE"),
        "inline_data was read",
      );
    });
  });
}
