// Usage: totals of a time range, a chart over time per model, key or format
// (admin.usageSeries), and the latest records (admin.usage).
import { useMemo, useState } from "react";
import { colorOf, StackedBars } from "../components/chart";
import { BudgetMeter, limitsText } from "../components/key-facts";
import { Badge, EmptyRow, ErrorNote, SelectField } from "../components/ui";
import type { Outputs } from "../lib/api";
import { fmtCredits, fmtNum, fmtTime } from "../lib/format";
import { useInterval, useLoad, useSession } from "../lib/hooks";

type Point = Outputs["admin"]["usageSeries"]["total"];
type Group = "model" | "key" | "format";

const RANGES = [
  { value: "1h", label: "Last hour", bucketMs: 60_000, buckets: 60 },
  { value: "6h", label: "Last 6 hours", bucketMs: 5 * 60_000, buckets: 72 },
  { value: "24h", label: "Last 24 hours", bucketMs: 30 * 60_000, buckets: 48 },
  { value: "7d", label: "Last 7 days", bucketMs: 2 * 3_600_000, buckets: 84 },
  { value: "30d", label: "Last 30 days", bucketMs: 86_400_000, buckets: 30 },
] as const;

const METRICS: { value: string; label: string; of(p: Point): number; digits: number }[] = [
  { value: "requests", label: "Requests", of: (p) => p.requests, digits: 0 },
  { value: "tokens", label: "Tokens (in + out)", of: (p) => p.inputTokens + p.outputTokens, digits: 0 },
  { value: "credits", label: "Credits", of: (p) => p.credits, digits: 4 },
  { value: "images", label: "Images", of: (p) => p.images, digits: 0 },
  { value: "seconds", label: "Video seconds", of: (p) => p.seconds, digits: 1 },
  { value: "errors", label: "Errors", of: (p) => p.errors, digits: 0 },
];
const MAX_SERIES = 8;

export function UsagePage() {
  const { api } = useSession();
  const [range, setRange] = useState<(typeof RANGES)[number]["value"]>("1h");
  const [group, setGroup] = useState<Group>("model");
  const [metric, setMetric] = useState("requests");
  // The key filter lives in the URL (?key=), so the Keys page can link here and a reload keeps it.
  const [keyId, setKeyIdState] = useState(() => new URLSearchParams(location.search).get("key") ?? "");
  const setKeyId = (id: string) => {
    setKeyIdState(id);
    const url = new URL(location.href);
    if (id) url.searchParams.set("key", id);
    else url.searchParams.delete("key");
    history.replaceState(null, "", url);
  };
  const [auto, setAuto] = useState(true);
  const r = RANGES.find((x) => x.value === range)!;
  const m = METRICS.find((x) => x.value === metric)!;

  const keys = useLoad(() => api.admin.keys.list.query({ includeRevoked: true }), [api]);
  const names = useMemo(() => new Map((keys.data ?? []).map((k) => [k.id, k.name])), [keys.data]);
  const selectedKey = keyId ? keys.data?.find((k) => k.id === keyId) : undefined;
  const series = useLoad(() => {
    const until = Math.ceil((Date.now() + 1) / r.bucketMs) * r.bucketMs;
    return api.admin.usageSeries.query({ since: until - r.buckets * r.bucketMs, until, buckets: r.buckets, groupBy: group, ...(keyId ? { keyId } : {}) });
  }, [api, range, group, keyId]);
  const recent = useLoad(() => api.admin.usage.query({ limit: 15, ...(keyId ? { keyId } : {}) }), [api, keyId]);
  const refresh = () => {
    series.reload();
    recent.reload();
    keys.reload();
  };
  useInterval(refresh, auto ? 5000 : null);

  const label = (g: string) => (group === "key" ? (names.get(g) ?? g) : g);
  const chartSeries = useMemo(() => {
    const all = series.data?.series ?? [];
    const top = all.slice(0, MAX_SERIES).map((s) => ({ name: label(s.group), values: s.points.map(m.of) }));
    const rest = all.slice(MAX_SERIES);
    if (rest.length) top.push({ name: `${rest.length} others`, values: (series.data?.starts ?? []).map((_, i) => rest.reduce((sum, s) => sum + m.of(s.points[i]!), 0)) });
    return top;
  }, [series.data, metric, names, group]);
  const t = series.data?.total;

  return (
    <div className="stack">
      <section className="card">
        <div className="card-head">
          <h2>Usage</h2>
          <div className="row">
            <label className="check">
              <input type="checkbox" checked={auto} onChange={(e) => setAuto(e.target.checked)} data-testid="usage-auto" />
              Auto refresh
            </label>
            <button type="button" onClick={refresh} data-testid="usage-refresh">
              Refresh
            </button>
          </div>
        </div>
        <div className="filters">
          <SelectField label="Range" value={range} options={RANGES} onChange={(v) => setRange(v as typeof range)} testId="usage-range" />
          <label>
            Per
            <select value={group} onChange={(e) => setGroup(e.target.value as Group)} data-testid="usage-group">
              <option value="model">Model</option>
              <option value="key">Key</option>
              <option value="format">Wire format</option>
            </select>
          </label>
          <SelectField label="Show" value={metric} options={METRICS} onChange={setMetric} testId="usage-metric" />
          <label>
            Key
            <select value={keyId} onChange={(e) => setKeyId(e.target.value)} data-testid="usage-key">
              <option value="">All keys</option>
              {(keys.data ?? []).map((k) => (
                <option key={k.id} value={k.id}>
                  {k.name} ({k.prefix}…){k.revokeTime ? " · revoked" : ""}
                </option>
              ))}
            </select>
          </label>
        </div>
        {selectedKey ? (
          <div className="key-strip" data-testid="usage-key-facts">
            <div>
              <b>{selectedKey.name}</b> <span className="mono small muted">{selectedKey.prefix}…</span>
              {selectedKey.revokeTime ? (
                <>
                  {" "}
                  <Badge tone="bad">revoked</Badge>
                </>
              ) : null}
            </div>
            <BudgetMeter spent={selectedKey.spent} budget={selectedKey.budget} />
            <div className="small">{limitsText(selectedKey.limits)}</div>
            <button type="button" className="ghost small" onClick={() => setKeyId("")} data-testid="usage-key-clear">
              Show all keys
            </button>
          </div>
        ) : null}
        <ErrorNote error={series.error} testId="usage-error" />
        <div className="totals" data-testid="usage-totals">
          <Total label="Requests" value={t ? fmtNum(t.requests) : "…"} testId="usage-total-requests" raw={t?.requests} />
          <Total label="Input tokens" value={t ? fmtNum(t.inputTokens) : "…"} testId="usage-total-input" raw={t?.inputTokens} />
          <Total label="Output tokens" value={t ? fmtNum(t.outputTokens) : "…"} testId="usage-total-output" raw={t?.outputTokens} />
          <Total label="Images" value={t ? fmtNum(t.images) : "…"} testId="usage-total-images" raw={t?.images} />
          <Total label="Video seconds" value={t ? fmtNum(t.seconds, 1) : "…"} testId="usage-total-seconds" raw={t?.seconds} />
          <Total label="Credits" value={t ? fmtCredits(t.credits) : "…"} testId="usage-total-credits" raw={t?.credits} />
          <Total label="Errors" value={t ? fmtNum(t.errors) : "…"} testId="usage-total-errors" raw={t?.errors} />
        </div>
        {series.data ? <StackedBars starts={series.data.starts} bucketMs={series.data.bucketMs} series={chartSeries} unit={m.label.toLowerCase()} digits={m.digits} /> : <div className="chart placeholder" />}
        <div className="legend" data-testid="usage-legend">
          {chartSeries.map((s, i) => (
            <span key={s.name} className="legend-item" data-testid="usage-legend-item" data-name={s.name}>
              <i style={{ background: colorOf(i) }} /> {s.name} <b>{fmtNum(s.values.reduce((a, b) => a + b, 0), m.digits)}</b>
            </span>
          ))}
        </div>
        {series.data?.truncated ? <div className="note warn">Too many records: the oldest part of the range is not shown.</div> : null}
      </section>

      <section className="card">
        <div className="card-head">
          <h2>Latest requests</h2>
        </div>
        <ErrorNote error={recent.error} />
        <table className="table" data-testid="usage-records">
          <thead>
            <tr>
              <th>Time</th>
              <th>Key</th>
              <th>Format</th>
              <th>Model</th>
              <th>Channel</th>
              <th>Tokens in / out</th>
              <th>Images / video s</th>
              <th>Credits</th>
              <th>Status</th>
              <th>Latency</th>
            </tr>
          </thead>
          <tbody>
            {(recent.data?.records ?? []).map((x, i) => (
              <tr key={`${x.requestId}-${i}`} data-testid="usage-record">
                <td className="small">{fmtTime(x.time)}</td>
                <td className="small">
                  {keyId ? (
                    (names.get(x.keyId) ?? x.keyId)
                  ) : (
                    <a href={`/console/usage?key=${encodeURIComponent(x.keyId)}`} onClick={(e) => (e.preventDefault(), setKeyId(x.keyId))} title="Show only this key">
                      {names.get(x.keyId) ?? x.keyId}
                    </a>
                  )}
                </td>
                <td className="small">{x.format}</td>
                <td className="small">{x.model}</td>
                <td className="small">{x.channel}</td>
                <td className="small">
                  {fmtNum(x.inputTokens)} / {fmtNum(x.outputTokens)}
                </td>
                <td className="small">
                  {x.images || "—"} / {x.seconds || "—"}
                </td>
                <td className="small">{fmtCredits(x.credits)}</td>
                <td>
                  <Badge tone={x.status === "ok" ? "ok" : "bad"}>{x.status}</Badge>
                </td>
                <td className="small">{x.latencyMs} ms</td>
              </tr>
            ))}
            {recent.data?.records.length === 0 ? <EmptyRow colSpan={10}>No requests {keyId ? "with this key " : ""}yet.</EmptyRow> : null}
          </tbody>
        </table>
      </section>
    </div>
  );
}

function Total({ label, value, testId, raw }: { label: string; value: string; testId: string; raw: number | undefined }) {
  return (
    <div className="total">
      <div className="total-value" data-testid={testId} data-value={raw ?? ""}>
        {value}
      </div>
      <div className="total-label">{label}</div>
    </div>
  );
}
