// Chinese prompts: translated into promptEn through the core's ChatService when
// a translation model is configured; passed on unchanged (and said so) when not.
import t from "tap";
import { client, startIb } from "./ib-helpers.js";

t.test("with a translation model, promptEn comes from the chat model and keeps the parameters", async (t) => {
  const s = await startIb({ taskMs: 20, imageBot: { translateModel: "local-chat" } });
  t.teardown(() => s.close());
  const task = await client(s).run("/submit/imagine", { prompt: "一只在雪地里的红狐狸 --ar 3:2" });
  t.equal(task.prompt, "一只在雪地里的红狐狸 --ar 3:2");
  t.not(task.promptEn, task.prompt);
  t.match(task.promptEn, /\S.* --ar 3:2$/);
  const usage = await s.deps.storage.usage.query({ keyId: "key_user", model: "local-chat" });
  t.equal(usage.rows.length, 1, "one ChatService call, made with the caller's key");
  t.match(task.properties, { translated: true, finalZhPrompt: "一只在雪地里的红狐狸 --ar 3:2", finalPrompt: task.promptEn });
  const english = await client(s).run("/submit/imagine", { prompt: "a red fox" });
  t.equal(english.promptEn, "a red fox", "English prompts are not sent to the model");
  t.notOk("translated" in english.properties);
});

t.test("without one, the prompt passes unchanged and properties say so", async (t) => {
  const s = await startIb({ taskMs: 20 });
  t.teardown(() => s.close());
  const task = await client(s).run("/submit/imagine", { prompt: "猫猫" });
  t.match(task, { prompt: "猫猫", promptEn: "猫猫", status: "SUCCESS" });
  t.match(task.properties, { translated: false, translateNote: "no translation model is configured; the prompt was passed on unchanged" });
});

t.test("a failing translation model never fails the submission", async (t) => {
  const s = await startIb({ taskMs: 20, imageBot: { translateModel: "local-chat" } });
  t.teardown(() => s.close());
  const task = await client(s).run("/submit/imagine", { prompt: "猫猫 #fault:overloaded" });
  t.match(task, { status: "SUCCESS", promptEn: "猫猫 #fault:overloaded" });
  t.match(task.properties, { translated: false, translateNote: "the translation model did not answer; the prompt was passed on unchanged" });
});
