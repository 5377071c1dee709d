// Channels and image-bot accounts: health, enable/disable, last errors, and
// an account's limits and settings (account-edit.tsx). Refreshed every few
// seconds while the page is open.
import { useState } from "react";
import { Badge, EmptyRow, ErrorNote, Switch } from "../components/ui";
import type { Account, Channel } from "../lib/api";
import { fmtAgo, fmtTime } from "../lib/format";
import { useInterval, useLoad, useSession } from "../lib/hooks";
import { AccountEditDialog } from "./account-edit";

const REFRESH_MS = 5000;

function health(c: { enabled: boolean; coolingDown?: boolean; lastErrorTime: number | null }): { tone: string; label: string } {
  if (!c.enabled) return { tone: "muted", label: "disabled" };
  if (c.coolingDown) return { tone: "warn", label: "cooling down" };
  if (c.lastErrorTime && Date.now() - c.lastErrorTime < 5 * 60_000) return { tone: "warn", label: "recent errors" };
  return { tone: "ok", label: "healthy" };
}

function LastError({ message, time }: { message: string; time: number | null }) {
  if (!message) return <span className="muted">—</span>;
  return (
    <span title={fmtTime(time)} data-testid="last-error">
      <span className="bad">{message}</span> <span className="muted small">({fmtAgo(time)})</span>
    </span>
  );
}

/** The health badge and the last error of a channel or an account, as two cells. */
function HealthCells({ of, testId }: { of: { enabled: boolean; coolingDown?: boolean; lastError: string; lastErrorTime: number | null }; testId: string }) {
  const h = health(of);
  return (
    <>
      <td>
        <Badge tone={h.tone} testId={testId}>
          {h.label}
        </Badge>
      </td>
      <td className="small">
        <LastError message={of.lastError} time={of.lastErrorTime} />
      </td>
    </>
  );
}

export function ChannelsPage() {
  const { api } = useSession();
  const channels = useLoad(() => api.admin.channels.list.query(), [api]);
  const accounts = useLoad(() => api.admin.accounts.list.query(), [api]);
  const [busy, setBusy] = useState("");
  const [error, setError] = useState<unknown>();
  const [editing, setEditing] = useState<Account | null>(null);
  const [saved, setSaved] = useState("");
  const refresh = () => {
    channels.reload();
    accounts.reload();
  };
  useInterval(refresh, REFRESH_MS);

  /** Runs one switch's change; `id` marks that switch busy meanwhile. */
  async function act(id: string, run: () => Promise<void>) {
    setBusy(id);
    setError(undefined);
    try {
      await run();
    } catch (err) {
      setError(err);
    } finally {
      setBusy("");
    }
  }

  const toggleChannel = (c: Channel, enabled: boolean) =>
    act(`channel:${c.name}`, async () => {
      await api.admin.channels.setEnabled.mutate({ name: c.name, enabled });
      channels.reload();
      accounts.reload();
    });

  const toggleAccount = (a: Account, enabled: boolean) =>
    act(`account:${a.id}`, async () => {
      await api.admin.accounts.update.mutate({ id: a.id, enabled });
      accounts.reload();
    });

  return (
    <div className="stack">
      <ErrorNote error={error ?? channels.error ?? accounts.error} testId="channels-error" />
      <section className="card">
        <div className="card-head">
          <h2>Upstream channels</h2>
          <div className="row">
            <span className="muted small">The local engine serves whatever no channel takes.</span>
            <button type="button" onClick={refresh} data-testid="channels-refresh">
              Refresh
            </button>
          </div>
        </div>
        <table className="table" data-testid="channel-list">
          <thead>
            <tr>
              <th>Channel</th>
              <th>Provider</th>
              <th>Models</th>
              <th>Priority / weight</th>
              <th>Health</th>
              <th>Last error</th>
              <th>Enabled</th>
            </tr>
          </thead>
          <tbody>
            {(channels.data ?? []).map((c) => (
              <tr key={c.name} data-testid="channel-row" data-name={c.name} data-enabled={String(c.enabled)}>
                <td>
                  <b>{c.name}</b>
                  <div className="small muted mono">{c.baseUrl}</div>
                </td>
                <td>{c.provider}</td>
                <td className="small">{c.models.length ? c.models.join(", ") : "all"}</td>
                <td className="small">
                  {c.priority} / {c.weight}
                </td>
                <HealthCells of={c} testId="channel-health" />
                <td>
                  <Switch checked={c.enabled} disabled={busy === `channel:${c.name}`} onChange={(v) => void toggleChannel(c, v)} label={`Enable channel ${c.name}`} testId="channel-toggle" />
                </td>
              </tr>
            ))}
            {channels.data?.length === 0 ? (
              <EmptyRow colSpan={7}>No upstream channel is configured (OMNIGATE_CHANNELS): every request is served by the local engine.</EmptyRow>
            ) : null}
          </tbody>
        </table>
      </section>

      <section className="card">
        <div className="card-head">
          <h2>Image-bot accounts</h2>
          <span className="muted small">Changes apply at once and are kept across restarts.</span>
        </div>
        {saved ? (
          <div className="note ok" data-testid="account-saved">
            {saved}
          </div>
        ) : null}
        <table className="table" data-testid="account-list">
          <thead>
            <tr>
              <th>Account</th>
              <th>Channel</th>
              <th>Modes / bots</th>
              <th>Running / queued</th>
              <th>Health</th>
              <th>Last error</th>
              <th>Enabled</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {(accounts.data ?? []).map((a) => (
              <tr key={a.id} data-testid="account-row" data-id={a.id} data-enabled={String(a.enabled)}>
                <td>
                  <b>{a.id}</b>
                  {a.remark ? <div className="small muted">{a.remark}</div> : null}
                </td>
                <td>{a.channel}</td>
                <td className="small">
                  {a.modes.join(", ")} {a.remix ? <Badge tone="info">remix{a.remixAutoSubmit ? " · auto" : ""}</Badge> : null}
                  <br />
                  <span className="muted">{a.botTypes.join(", ")}</span>
                </td>
                <td className="small" data-testid="account-load" data-running={a.running} data-queued={a.queued} data-concurrency={a.concurrency} data-queue-size={a.queueSize}>
                  <Load label="running" used={a.running} of={a.concurrency} />
                  <Load label="queued" used={a.queued} of={a.queueSize} />
                </td>
                <HealthCells of={a} testId="account-health" />
                <td>
                  <Switch checked={a.enabled} disabled={busy === `account:${a.id}`} onChange={(v) => void toggleAccount(a, v)} label={`Enable account ${a.id}`} testId="account-toggle" />
                </td>
                <td className="actions">
                  <button type="button" className="small" onClick={() => (setEditing(a), setSaved(""))} data-testid="account-edit">
                    Edit
                  </button>
                </td>
              </tr>
            ))}
            {accounts.data?.length === 0 ? <EmptyRow colSpan={8}>No image-bot account is configured (imageBot.accounts).</EmptyRow> : null}
          </tbody>
        </table>
      </section>
      <AccountEditDialog
        account={editing}
        onClose={() => setEditing(null)}
        onSaved={(a) => {
          setEditing(null);
          setSaved(`Account ${a.id} saved: up to ${a.concurrency} running and ${a.queueSize} queued.`);
          accounts.reload();
        }}
      />
    </div>
  );
}

/** "1 / 3 running" with a thin bar of how full it is. */
function Load({ label, used, of }: { label: string; used: number; of: number }) {
  const pct = of > 0 ? Math.min(100, (used / of) * 100) : used > 0 ? 100 : 0;
  return (
    <div className="load">
      <span>
        {used} / {of} {label}
      </span>
      <div className={`meter ${pct >= 100 ? "tone-warn" : "tone-info"}`} aria-hidden>
        <div style={{ width: `${pct}%` }} />
      </div>
    </div>
  );
}
