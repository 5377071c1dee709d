// Tasks: the live list of image-bot tasks and videos (admin.tasks.live, a tRPC
// subscription over SSE), with filters, and the detail of the selected task.
import { useEffect, useMemo, useState } from "react";
import type { FeedEvent, FeedItem } from "../../../src/trpc/task-feed";
import { Badge, EmptyRow, ErrorNote, PHASE_TONE, Progress, SelectField } from "../components/ui";
import { useAuthGuard, useSession } from "../lib/hooks";
import { fmtAgo } from "../lib/format";
import { navigate } from "../lib/nav";
import { TaskDetailPanel } from "./task-detail";

type Kind = FeedItem["kind"];
type Phase = FeedItem["phase"];
const PHASES: { value: string; label: string; phases: Phase[] }[] = [
  { value: "", label: "Any status", phases: [] },
  { value: "active", label: "Active (queued, running, waiting)", phases: ["queued", "running", "waiting"] },
  { value: "queued", label: "Queued", phases: ["queued"] },
  { value: "running", label: "Running", phases: ["running"] },
  { value: "waiting", label: "Waiting for confirmation", phases: ["waiting"] },
  { value: "succeeded", label: "Succeeded", phases: ["succeeded"] },
  { value: "failed", label: "Failed", phases: ["failed"] },
  { value: "cancelled", label: "Cancelled", phases: ["cancelled"] },
];
const LIMIT = 200;

type LiveState = "connecting" | "live" | "reconnecting" | "error";

function useLiveTasks(kind: Kind | "", phases: Phase[]) {
  const { api } = useSession();
  const guard = useAuthGuard();
  const [items, setItems] = useState<FeedItem[]>([]);
  const [state, setState] = useState<LiveState>("connecting");
  const [error, setError] = useState<unknown>();
  const phaseKey = phases.join(",");

  useEffect(() => {
    setState("connecting");
    setError(undefined);
    const matches = (i: FeedItem) => phases.length === 0 || phases.includes(i.phase);
    const sub = api.admin.tasks.live.subscribe(
      { ...(kind ? { kind } : {}), phases, limit: LIMIT },
      {
        onData(ev: FeedEvent) {
          setState("live");
          if (ev.type === "snapshot") return setItems(ev.items);
          setItems((list) => {
            const rest = list.filter((i) => i.id !== ev.item.id);
            if (!matches(ev.item)) return rest;
            return [ev.item, ...rest].sort((a, b) => (b.submitTime ?? 0) - (a.submitTime ?? 0)).slice(0, LIMIT);
          });
        },
        onError(err) {
          guard(err);
          setError(err);
          setState("error");
        },
        onConnectionStateChange(s) {
          if (s.state === "connecting") setState((x) => (x === "live" ? "reconnecting" : x));
        },
      },
    );
    return () => sub.unsubscribe();
  }, [api, kind, phaseKey, guard]);

  return { items, state, error };
}

export function TasksPage({ path }: { path: string }) {
  const [kind, setKind] = useState<Kind | "">("");
  const [phase, setPhase] = useState("");
  const phases = useMemo(() => PHASES.find((p) => p.value === phase)?.phases ?? [], [phase]);
  const { items, state, error } = useLiveTasks(kind, phases);
  const [, sel, selId] = /^\/tasks\/(image-bot|video)\/([^/]+)$/.exec(path) ?? [];
  const selected = sel && selId ? { kind: sel as Kind, id: decodeURIComponent(selId) } : undefined;
  const live = selected ? items.find((i) => i.id === selected.id) : undefined;
  const [, tick] = useState(0);
  useEffect(() => {
    const id = setInterval(() => tick((x) => x + 1), 15_000);
    return () => clearInterval(id);
  }, []);

  return (
    <div className={`tasks-layout ${selected ? "with-detail" : ""}`}>
      <section className="card">
        <div className="card-head">
          <h2>Tasks</h2>
          <span className={`live live-${state}`} data-testid="live-status" data-state={state}>
            {state === "live" ? "● live" : state === "error" ? "disconnected" : state === "reconnecting" ? "reconnecting…" : "connecting…"}
          </span>
        </div>
        <div className="filters">
          <label>
            Kind
            <select value={kind} onChange={(e) => setKind(e.target.value as Kind | "")} data-testid="task-filter-kind">
              <option value="">All kinds</option>
              <option value="image-bot">Image-bot</option>
              <option value="video">Video</option>
            </select>
          </label>
          <SelectField label="Status" value={phase} options={PHASES} onChange={setPhase} testId="task-filter-status" />
        </div>
        <ErrorNote error={error} testId="tasks-error" />
        <table className="table tasks" data-testid="task-list">
          <thead>
            <tr>
              <th />
              <th>Task</th>
              <th>Status</th>
              <th className="w-progress">Progress</th>
              <th>Submitted</th>
            </tr>
          </thead>
          <tbody>
            {items.map((i) => (
              <tr
                key={i.id}
                className={selected?.id === i.id ? "selected" : ""}
                data-testid="task-row"
                data-task-id={i.id}
                data-kind={i.kind}
                data-status={i.status}
                data-phase={i.phase}
                onClick={() => navigate(`/tasks/${i.kind}/${encodeURIComponent(i.id)}`)}
              >
                <td className="thumb">{i.imageUrl ? <img src={i.imageUrl} alt="" loading="lazy" /> : <span className="kind-icon">{i.kind === "video" ? "▶" : "▦"}</span>}</td>
                <td>
                  <div className="task-title">
                    <Badge tone="neutral">{i.label}</Badge> <span className="prompt">{i.prompt || "—"}</span>
                  </div>
                  <div className="muted small mono">
                    {i.kind} · {i.id}
                  </div>
                  {i.failReason ? <div className="small bad">{i.failReason}</div> : null}
                </td>
                <td>
                  <Badge tone={PHASE_TONE[i.phase]} testId="task-status">
                    {i.status}
                  </Badge>
                </td>
                <td>
                  <Progress value={i.progress} phase={i.phase} />
                </td>
                <td className="small muted">{fmtAgo(i.submitTime)}</td>
              </tr>
            ))}
            {items.length === 0 ? (
              <EmptyRow colSpan={5} testId="task-empty">
                {state === "connecting" ? "Loading…" : "No tasks match. Submit one from the Playground."}
              </EmptyRow>
            ) : null}
          </tbody>
        </table>
      </section>
      {selected ? <TaskDetailPanel key={`${selected.kind}/${selected.id}`} kind={selected.kind} id={selected.id} live={live} /> : null}
    </div>
  );
}
