// Playground: try the gateway from the browser with the signed-in key: an
// image-bot imagine, a video, an image generation and a streamed chat.
import { useRef, useState, type FormEvent } from "react";
import type { ChatStreamEvent } from "../../../src/trpc/chat-stream";
import { ErrorNote } from "../components/ui";
import { useLoad, useSession, useSubmit } from "../lib/hooks";
import { navigate } from "../lib/nav";

export function PlaygroundPage() {
  const { api } = useSession();
  const models = useLoad(() => api.models.list.query(), [api]);
  const of = (cap: string) => (models.data ?? []).filter((m) => m.capabilities.includes(cap)).map((m) => m.id);
  return (
    <div className="grid two">
      <ImagineCard />
      <ChatCard models={of("chat")} />
      <ImageCard models={of("image")} />
      <VideoCard models={of("video")} />
    </div>
  );
}

function TaskLink({ kind, id, testId }: { kind: "image-bot" | "video"; id: string; testId: string }) {
  return (
    <a href={`/console/tasks/${kind}/${id}`} onClick={(e) => (e.preventDefault(), navigate(`/tasks/${kind}/${encodeURIComponent(id)}`))} data-testid={testId}>
      Open task {id} →
    </a>
  );
}

/** A free-text model name with the known ones as suggestions. */
function ModelInput({ listId, value, models, onChange, testId }: { listId: string; value: string; models: string[]; onChange(v: string): void; testId: string }) {
  return (
    <label className="grow">
      Model
      <input list={listId} value={value} onChange={(e) => onChange(e.target.value)} data-testid={testId} />
      <datalist id={listId}>
        {models.map((m) => (
          <option key={m} value={m} />
        ))}
      </datalist>
    </label>
  );
}

function ImagineCard() {
  const { api } = useSession();
  const [prompt, setPrompt] = useState("");
  const [botType, setBotType] = useState<"PRIMARY_BOT" | "ANIME_BOT">("PRIMARY_BOT");
  const { result, error, busy, submit } = useSubmit(async () => {
    const r = await api.imageBot.imagine.mutate({ prompt, botType });
    if (r.code !== 1 && r.code !== 22) throw new Error(r.description || `refused (code ${r.code})`);
    return r;
  });

  return (
    <form className="card" onSubmit={submit}>
      <h2>Imagine</h2>
      <p className="muted small">An image-bot task: a 2×2 grid, then buttons to upscale or vary it.</p>
      <label>
        Prompt
        <textarea rows={3} value={prompt} onChange={(e) => setPrompt(e.target.value)} placeholder="a red fox in snow --ar 3:2" required data-testid="imagine-prompt" />
      </label>
      <label>
        Bot
        <select value={botType} onChange={(e) => setBotType(e.target.value as typeof botType)} data-testid="imagine-bot">
          <option value="PRIMARY_BOT">Primary</option>
          <option value="ANIME_BOT">Anime</option>
        </select>
      </label>
      <button type="submit" className="primary" disabled={busy || !prompt.trim()} data-testid="imagine-submit">
        {busy ? "Submitting…" : "Imagine"}
      </button>
      <ErrorNote error={error} testId="imagine-error" />
      {result ? (
        <div className="note ok" data-testid="imagine-result" data-task-id={result.taskId}>
          {result.description}. <TaskLink kind="image-bot" id={result.taskId} testId="imagine-open" />
        </div>
      ) : null}
    </form>
  );
}

function VideoCard({ models }: { models: string[] }) {
  const { api } = useSession();
  const [model, setModel] = useState("");
  const [prompt, setPrompt] = useState("");
  const [seconds, setSeconds] = useState(2);
  const [size, setSize] = useState("640x360");
  const chosen = model || models[0] || "sora-2";
  const { result, error, busy, submit } = useSubmit(() => api.videos.create.mutate({ model: chosen, prompt, seconds, size }));

  return (
    <form className="card" onSubmit={submit}>
      <h2>Video</h2>
      <div className="row fields">
        <ModelInput listId="video-models" value={chosen} models={models} onChange={setModel} testId="video-model" />
        <label>
          Seconds
          <input type="number" min={1} max={60} value={seconds} onChange={(e) => setSeconds(Number(e.target.value))} data-testid="video-seconds" />
        </label>
        <label>
          Size
          <input value={size} onChange={(e) => setSize(e.target.value)} data-testid="video-size" />
        </label>
      </div>
      <label>
        Prompt
        <textarea rows={2} value={prompt} onChange={(e) => setPrompt(e.target.value)} placeholder="a calico cat" required data-testid="video-prompt" />
      </label>
      <button type="submit" className="primary" disabled={busy || !prompt.trim()} data-testid="video-submit">
        {busy ? "Submitting…" : "Create video"}
      </button>
      <ErrorNote error={error} testId="video-error" />
      {result ? (
        <div className="note ok" data-testid="video-result">
          Video {result.status.toLowerCase()}. <TaskLink kind="video" id={result.id} testId="video-open" />
        </div>
      ) : null}
    </form>
  );
}

function ImageCard({ models }: { models: string[] }) {
  const { api } = useSession();
  const [model, setModel] = useState("dall-e-2");
  const [prompt, setPrompt] = useState("");
  const [size, setSize] = useState("256x256");
  // The last images stay shown while new ones are generated.
  const { result, error, busy, submit } = useSubmit(() => api.images.generate.mutate({ model, prompt, size }), { keepResult: true });

  return (
    <form className="card" onSubmit={submit}>
      <h2>Image generation</h2>
      <div className="row fields">
        <ModelInput listId="image-models" value={model} models={["dall-e-2", "dall-e-3", "gpt-image-1", ...models]} onChange={setModel} testId="image-model" />
        <label>
          Size
          <input value={size} onChange={(e) => setSize(e.target.value)} data-testid="image-size" />
        </label>
      </div>
      <label>
        Prompt
        <textarea rows={2} value={prompt} onChange={(e) => setPrompt(e.target.value)} placeholder="a lighthouse at dusk" required data-testid="image-prompt" />
      </label>
      <button type="submit" className="primary" disabled={busy || !prompt.trim()} data-testid="image-submit">
        {busy ? "Generating…" : "Generate"}
      </button>
      <ErrorNote error={error} testId="image-error" />
      {result ? (
        <div className="images" data-testid="image-result">
          {result.images.map((i) => (
            <figure key={i.url}>
              <a href={i.url} target="_blank" rel="noreferrer">
                <img src={i.url} alt={prompt} width={i.width} height={i.height} data-testid="image-output" />
              </a>
              <figcaption className="muted small">
                {result.model} · {i.width}×{i.height} · {result.channel}
              </figcaption>
            </figure>
          ))}
        </div>
      ) : null}
    </form>
  );
}

interface Turn {
  role: "user" | "assistant";
  content: string;
}

function ChatCard({ models }: { models: string[] }) {
  const { api } = useSession();
  const [model, setModel] = useState("");
  const [input, setInput] = useState("");
  const [turns, setTurns] = useState<Turn[]>([]);
  const [streaming, setStreaming] = useState("");
  const [status, setStatus] = useState<"idle" | "streaming" | "done" | "error">("idle");
  const [info, setInfo] = useState("");
  const [error, setError] = useState<unknown>();
  const stop = useRef<(() => void) | null>(null);
  const chosen = model || (models.includes("local-chat") ? "local-chat" : models[0]) || "local-chat";

  function send(e: FormEvent) {
    e.preventDefault();
    const text = input.trim();
    if (!text || status === "streaming") return;
    const history: Turn[] = [...turns, { role: "user", content: text }];
    setTurns(history);
    setInput("");
    setStreaming("");
    setInfo("");
    setError(undefined);
    setStatus("streaming");
    let acc = "";
    let finish = "";
    let usage = "";
    const finishTurn = (ok: boolean) => {
      stop.current = null;
      setTurns((t) => (acc ? [...t, { role: "assistant", content: acc }] : t));
      setStreaming("");
      setStatus(ok ? "done" : "error");
      setInfo([finish && `finish: ${finish}`, usage].filter(Boolean).join(" · "));
    };
    const sub = api.chat.stream.subscribe(
      { model: chosen, messages: history, maxTokens: 1024 },
      {
        onData(ev: ChatStreamEvent) {
          if (ev.type === "text") {
            acc += ev.text;
            setStreaming(acc);
          } else if (ev.type === "finish") finish = ev.finishReason;
          else if (ev.type === "usage") usage = `${ev.inputTokens} in / ${ev.outputTokens} out tokens`;
          else if (ev.type === "error") {
            setError(new Error(`${ev.code}: ${ev.message}`));
            finishTurn(false);
            sub.unsubscribe();
          }
        },
        onError(err) {
          setError(err);
          finishTurn(false);
        },
        onComplete() {
          if (stop.current) finishTurn(true);
        },
      },
    );
    stop.current = () => {
      sub.unsubscribe();
      finish = "stopped";
      finishTurn(true);
    };
  }

  return (
    <form className="card chat" onSubmit={send}>
      <div className="card-head">
        <h2>Chat</h2>
        <button type="button" className="ghost small" onClick={() => (setTurns([]), setInfo(""), setError(undefined))} disabled={status === "streaming"}>
          Clear
        </button>
      </div>
      <label>
        Model
        <select value={chosen} onChange={(e) => setModel(e.target.value)} data-testid="chat-model">
          {(models.length ? models : [chosen]).map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </select>
      </label>
      <div className="transcript" data-testid="chat-transcript">
        {turns.map((t, i) => (
          <div key={i} className={`turn ${t.role}`} data-testid={t.role === "assistant" ? "chat-answer" : "chat-question"}>
            {t.content}
          </div>
        ))}
        {status === "streaming" ? (
          <div className="turn assistant streaming" data-testid="chat-output">
            {streaming}
            <span className="caret" />
          </div>
        ) : null}
      </div>
      <div className="row">
        <input className="grow" value={input} onChange={(e) => setInput(e.target.value)} placeholder="Say something" data-testid="chat-input" />
        {status === "streaming" ? (
          <button type="button" onClick={() => stop.current?.()} data-testid="chat-stop">
            Stop
          </button>
        ) : (
          <button type="submit" className="primary" disabled={!input.trim()} data-testid="chat-submit">
            Send
          </button>
        )}
      </div>
      <div className="muted small" data-testid="chat-status" data-state={status}>
        {status === "streaming" ? "streaming…" : info}
      </div>
      <ErrorNote error={error} testId="chat-error" />
    </form>
  );
}
