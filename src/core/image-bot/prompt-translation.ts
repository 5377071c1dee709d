// Chinese prompts are translated into promptEn by a configured chat model,
// called through the core's ChatService with the caller's own key. Without a
// model, or when the call fails, the prompt passes unchanged and the task's
// properties say so. Never an error.
import type { JsonObject } from "@bufbuild/protobuf";
import { Role, type ChatService } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import type { Call } from "../call/call.js";
import type { CoreClient } from "../call/service.js";
import { hasChinese, paramsOf, stripParams } from "./prompt.js";

export interface Translation {
  promptEn: string;
  properties: JsonObject;
}

const SYSTEM = "Translate the user's image-generation prompt into English. Answer with the English prompt only, without quotes or comments.";

export async function translatePrompt(prompt: string, opts: { model: string; chat?: CoreClient<typeof ChatService> | undefined; call: Call }): Promise<Translation> {
  if (!hasChinese(prompt)) return { promptEn: prompt, properties: {} };
  if (!opts.model || !opts.chat) {
    return { promptEn: prompt, properties: { translated: false, translateNote: "no translation model is configured; the prompt was passed on unchanged" } };
  }
  const text = stripParams(prompt);
  const params = paramsOf(prompt);
  try {
    const res = await opts.chat.generate(
      {
        input: {
          model: opts.model,
          system: [{ kind: { case: "text", value: { text: SYSTEM } } }],
          turns: [{ role: Role.USER, parts: [{ kind: { case: "text", value: { text } } }] }],
          config: { maxOutputTokens: 512, temperature: 0 },
        },
      },
      // On the caller's behalf: its scopes, limits and budget apply, in the format it came in on.
      opts.call,
    );
    const out = (res.candidates[0]?.parts ?? [])
      .map((p) => (p.kind.case === "text" ? p.kind.value.text : ""))
      .join("")
      .trim();
    if (!out) throw new Error("empty translation");
    return { promptEn: params ? `${out} ${params}` : out, properties: { translated: true, finalZhPrompt: prompt } };
  } catch {
    return { promptEn: prompt, properties: { translated: false, translateNote: "the translation model did not answer; the prompt was passed on unchanged" } };
  }
}
