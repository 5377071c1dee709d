// One task: its image or video, its buttons (each starts a follow-up task),
// the confirmation form of a task waiting in MODAL, and cancel.
import { useEffect, useRef, useState, type FormEvent, type PointerEvent, type ReactNode } from "react";
import type { FeedItem } from "../../../src/trpc/task-feed";
import { Badge, Confirm, ErrorNote, PHASE_TONE, Progress } from "../components/ui";
import type { TaskDetail, VideoDetail } from "../lib/api";
import { fmtTime } from "../lib/format";
import { useLoad, useSession } from "../lib/hooks";
import { navigate } from "../lib/nav";

const TERMINAL = ["succeeded", "failed", "cancelled"];

/** A name for a button that shows only an emoji (🔄, ⬅️, 1️⃣), from its custom id. */
function buttonName(b: { label: string; emoji: string; customId: string }): string {
  if (b.label) return b.label;
  const id = b.customId;
  const pan = /pan_(left|right|up|down)/i.exec(id);
  const n = /::(?:PicReader|PromptAnalyzer)::(\d+)/i.exec(id)?.[1];
  if (/reroll/i.test(id)) return "Reroll";
  if (pan) return `Pan ${pan[1]!.toLowerCase()}`;
  if (/PicReader/i.test(id) && n) return `Imagine prompt ${n}`;
  if (/PromptAnalyzer/i.test(id) && n) return `Use prompt ${n}`;
  if (/Picread::Retry/i.test(id)) return "Describe again";
  return b.emoji || id;
}

export function TaskDetailPanel({ kind, id, live }: { kind: FeedItem["kind"]; id: string; live: FeedItem | undefined }) {
  const { api } = useSession();
  // Re-read the detail whenever the live list reports a new status (buttons appear on SUCCESS).
  const statusKey = live ? `${live.status}` : "";
  const detail = useLoad<{ kind: "image-bot"; task: TaskDetail } | { kind: "video"; video: VideoDetail }>(
    () => (kind === "video" ? api.videos.get.query({ id }).then((video) => ({ kind, video })) : api.imageBot.get.query({ id }).then((task) => ({ kind: "image-bot" as const, task }))),
    [api, kind, id, statusKey],
  );

  return (
    <section className="card detail" data-testid="task-detail" data-task-id={id}>
      <div className="card-head">
        <h2>{kind === "video" ? "Video" : "Task"}</h2>
        <button type="button" className="ghost" onClick={() => navigate("/tasks")} aria-label="Close detail" data-testid="task-detail-close">
          ×
        </button>
      </div>
      <ErrorNote error={detail.error} testId="task-detail-error" />
      {detail.data?.kind === "image-bot" ? <ImageBotDetail task={detail.data.task} live={live} /> : null}
      {detail.data?.kind === "video" ? <VideoDetailView video={detail.data.video} live={live} /> : null}
    </section>
  );
}

function Facts({ rows }: { rows: [string, ReactNode][] }) {
  return (
    <dl className="facts">
      {rows.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A danger button that asks first: the confirmation's open state is its own. */
function CancelButton({ label, title, message, disabled, testId, onConfirm }: { label: string; title: string; message: string; disabled: boolean; testId: string; onConfirm(): void }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="row">
      <button type="button" className="danger" disabled={disabled} onClick={() => setOpen(true)} data-testid={testId}>
        {label}
      </button>
      <Confirm
        open={open}
        title={title}
        message={message}
        confirmLabel={label}
        onConfirm={() => {
          setOpen(false);
          onConfirm();
        }}
        onCancel={() => setOpen(false)}
      />
    </div>
  );
}

function ImageBotDetail({ task, live }: { task: TaskDetail; live: FeedItem | undefined }) {
  const { api } = useSession();
  const status = live?.status ?? task.status;
  const phase = live?.phase ?? "";
  const progress = live?.progress ?? task.progress;
  const image = live?.imageUrl || task.imageUrl;
  const [busy, setBusy] = useState("");
  const [error, setError] = useState<unknown>();
  const [message, setMessage] = useState("");
  const active = phase ? !TERMINAL.includes(phase) : ["NOT_START", "SUBMITTED", "IN_PROGRESS", "MODAL"].includes(status);

  async function run(label: string, customId: string) {
    setBusy(label);
    setError(undefined);
    setMessage("");
    try {
      const r = await api.imageBot.action.mutate({ taskId: task.id, customId });
      if (r.code !== 1 && r.code !== 22) throw new Error(r.description || `refused (code ${r.code})`);
      navigate(`/tasks/image-bot/${encodeURIComponent(r.taskId)}`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy("");
    }
  }

  async function cancel() {
    setBusy("cancel");
    setError(undefined);
    try {
      await api.imageBot.cancel.mutate({ id: task.id });
      setMessage("Cancelled.");
    } catch (err) {
      setError(err);
    } finally {
      setBusy("");
    }
  }

  return (
    <div>
      <div className="row spread">
        <Badge tone={PHASE_TONE[phase] ?? "neutral"} testId="task-detail-status">
          {status}
        </Badge>
        <span className="mono small muted">{task.id}</span>
      </div>
      <Progress value={progress} phase={phase || undefined} testId="task-detail-progress" />
      {image ? (
        <a href={image} target="_blank" rel="noreferrer" className="media">
          <img src={image} alt={task.prompt} data-testid="task-image" />
        </a>
      ) : status === "MODAL" ? (
        // The confirmation form below is what matters now; no empty frame above it.
        <p className="muted small">Waiting for your confirmation.</p>
      ) : (
        <div className="media placeholder">{TERMINAL.includes(phase) ? "No image" : "No image yet"}</div>
      )}
      {task.failReason ? <div className="note error">{task.failReason}</div> : null}
      {status === "SUCCESS" && task.buttons.length > 0 ? (
        <div className="buttons" data-testid="task-buttons">
          {task.buttons.map((b) => (
            <button
              key={b.customId}
              type="button"
              className={b.style === 3 ? "ok" : ""}
              disabled={!!busy}
              title={buttonName(b)}
              aria-label={buttonName(b)}
              onClick={() => void run(b.label || b.emoji, b.customId)}
              data-testid="task-button"
              data-label={b.label || b.emoji}
            >
              {b.emoji} {b.label}
            </button>
          ))}
        </div>
      ) : null}
      {status === "MODAL" ? <ModalForm task={task} onDone={setMessage} /> : null}
      {active ? (
        <CancelButton label="Cancel task" title="Cancel this task?" message="The task stops and its charge is refunded." disabled={!!busy} testId="task-cancel" onConfirm={() => void cancel()} />
      ) : null}
      {message ? (
        <div className="note ok" data-testid="task-message">
          {message}
        </div>
      ) : null}
      <ErrorNote error={error} testId="task-error" />
      <Facts
        rows={[
          ["Action", `${task.action}${task.properties.actionDetail ? ` (${String(task.properties.actionDetail)})` : ""}`],
          ["Prompt", task.prompt || "—"],
          ["Final prompt", String(task.properties.finalPrompt ?? task.promptEn ?? "—")],
          ["Description", task.description || "—"],
          ["Parent", task.parentId ? <a href={`/console/tasks/image-bot/${task.parentId}`} onClick={(e) => (e.preventDefault(), navigate(`/tasks/image-bot/${task.parentId}`))}>{task.parentId}</a> : "—"],
          ["Account", task.accountId || "—"],
          ["Bot", task.botType],
          ["Seed", task.seed || "—"],
          ["Submitted", fmtTime(task.submitTime)],
          ["Started", fmtTime(task.startTime)],
          ["Finished", fmtTime(task.finishTime)],
        ]}
      />
    </div>
  );
}

/** Confirms a MODAL task: the prompt, plus a region for Vary (Region). */
function ModalForm({ task, onDone }: { task: TaskDetail; onDone(msg: string): void }) {
  const { api } = useSession();
  const detail = String(task.properties.actionDetail ?? "");
  const inpaint = detail === "INPAINT";
  const zoom = detail === "CUSTOM_ZOOM";
  const [prompt, setPrompt] = useState(zoom && !/--zoom\b/.test(task.prompt) ? `${task.prompt} --zoom 2` : task.prompt);
  const [mask, setMask] = useState<string | null>(null);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const parent = useLoad(() => (inpaint && task.parentId ? api.imageBot.get.query({ id: task.parentId }) : Promise.resolve(undefined)), [api, inpaint, task.parentId]);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      if (inpaint && !mask) throw new Error("Draw the region to vary on the image first.");
      const r = await api.imageBot.modal.mutate({ taskId: task.id, prompt, ...(mask ? { mask: { data: mask, mimeType: "image/png" } } : {}) });
      if (r.code !== 1 && r.code !== 22) throw new Error(r.description || `refused (code ${r.code})`);
      onDone(r.code === 22 ? "Confirmed: queued." : "Confirmed: running.");
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="modal-form" onSubmit={submit} data-testid="modal-form">
      <h3>Confirm {detail ? detail.toLowerCase().replace(/_/g, " ") : "the task"}</h3>
      {zoom ? <p className="muted small">Custom Zoom needs --zoom with a value from 1 to 2.</p> : null}
      <label>
        Prompt
        <textarea rows={3} value={prompt} onChange={(e) => setPrompt(e.target.value)} data-testid="modal-prompt" />
      </label>
      {inpaint ? parent.data?.imageUrl ? <RegionSelect src={parent.data.imageUrl} onMask={setMask} /> : <p className="muted">Loading the image…</p> : null}
      <ErrorNote error={error} testId="modal-error" />
      <button type="submit" className="primary" disabled={busy} data-testid="modal-submit">
        {busy ? "Submitting…" : "Submit"}
      </button>
    </form>
  );
}

/** Drag a rectangle on the image; the mask is a PNG of the image's size, white where it may change. */
function RegionSelect({ src, onMask }: { src: string; onMask(base64: string | null): void }) {
  const img = useRef<HTMLImageElement>(null);
  const [rect, setRect] = useState<{ x0: number; y0: number; x1: number; y1: number } | null>(null);
  const [drag, setDrag] = useState(false);
  const pos = (e: PointerEvent) => {
    const r = img.current!.getBoundingClientRect();
    return { x: Math.min(1, Math.max(0, (e.clientX - r.left) / r.width)), y: Math.min(1, Math.max(0, (e.clientY - r.top) / r.height)) };
  };
  useEffect(() => {
    if (drag || !rect || !img.current) return;
    const w = img.current.naturalWidth;
    const h = img.current.naturalHeight;
    const x = Math.min(rect.x0, rect.x1) * w;
    const y = Math.min(rect.y0, rect.y1) * h;
    const rw = Math.abs(rect.x1 - rect.x0) * w;
    const rh = Math.abs(rect.y1 - rect.y0) * h;
    if (rw < 2 || rh < 2) return onMask(null);
    const c = document.createElement("canvas");
    c.width = w;
    c.height = h;
    const g = c.getContext("2d")!;
    g.fillStyle = "#000";
    g.fillRect(0, 0, w, h);
    g.fillStyle = "#fff";
    g.fillRect(x, y, rw, rh);
    onMask(c.toDataURL("image/png").split(",")[1] ?? null);
  }, [drag, rect, onMask]);
  return (
    <div className="region" data-testid="modal-region">
      <p className="muted small">Drag on the image to mark the region to vary.</p>
      <div
        className="region-box"
        onPointerDown={(e) => {
          const p = pos(e);
          (e.target as Element).setPointerCapture?.(e.pointerId);
          setDrag(true);
          setRect({ x0: p.x, y0: p.y, x1: p.x, y1: p.y });
        }}
        onPointerMove={(e) => {
          if (!drag) return;
          const p = pos(e);
          setRect((r) => (r ? { ...r, x1: p.x, y1: p.y } : r));
        }}
        onPointerUp={() => setDrag(false)}
      >
        <img ref={img} src={src} alt="" draggable={false} crossOrigin="anonymous" />
        {rect ? (
          <div
            className="region-rect"
            style={{
              left: `${Math.min(rect.x0, rect.x1) * 100}%`,
              top: `${Math.min(rect.y0, rect.y1) * 100}%`,
              width: `${Math.abs(rect.x1 - rect.x0) * 100}%`,
              height: `${Math.abs(rect.y1 - rect.y0) * 100}%`,
            }}
          />
        ) : null}
      </div>
    </div>
  );
}

function VideoDetailView({ video, live }: { video: VideoDetail; live: FeedItem | undefined }) {
  const { api } = useSession();
  // The cancel's answer stands in for the loaded video until the detail is loaded again.
  const [cancelled, setCancelled] = useState<{ of: VideoDetail; now: VideoDetail }>();
  const shown = cancelled?.of === video ? cancelled.now : video;
  const status = live?.status ?? shown.status;
  const phase = live?.phase;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const active = phase ? !TERMINAL.includes(phase) : status === "QUEUED" || status === "IN_PROGRESS";

  async function cancel() {
    setBusy(true);
    setError(undefined);
    try {
      setCancelled({ of: video, now: await api.videos.cancel.mutate({ id: video.id }) });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div>
      <div className="row spread">
        <Badge tone={PHASE_TONE[phase ?? ""] ?? "neutral"} testId="task-detail-status">
          {status}
        </Badge>
        <span className="mono small muted">{shown.id}</span>
      </div>
      <Progress value={live?.progress ?? shown.progress} phase={phase} testId="task-detail-progress" />
      {shown.url ? (
        <video className="media" src={shown.url} controls loop muted playsInline data-testid="task-video" />
      ) : (
        <div className="media placeholder">{status === "FAILED" ? (shown.error?.code === "cancelled" ? "Cancelled" : "Failed") : "Rendering…"}</div>
      )}
      {shown.error ? <div className="note error">{`${shown.error.code}: ${shown.error.message}`}</div> : null}
      {active ? (
        <CancelButton
          label="Cancel video"
          title="Cancel this video?"
          message="Rendering stops, the video stays as cancelled, and its charge is refunded."
          disabled={busy}
          testId="video-cancel"
          onConfirm={() => void cancel()}
        />
      ) : null}
      <ErrorNote error={error} testId="video-error" />
      <Facts
        rows={[
          ["Model", shown.model],
          ["Prompt", shown.prompt],
          ["Length", `${shown.seconds} s`],
          ["Size", `${shown.width}×${shown.height}`],
          ["Channel", shown.channel || "—"],
          ["Remixed from", shown.remixedFrom || "—"],
          ["Created", fmtTime(shown.createTime)],
          ["Completed", fmtTime(shown.completeTime)],
          ["Expires", fmtTime(shown.expireTime)],
        ]}
      />
    </div>
  );
}
