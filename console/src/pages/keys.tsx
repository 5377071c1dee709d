// Keys: list, create (the secret is shown once), edit scopes, budget and
// limits, revoke.
import { useState, type FormEvent } from "react";
import { Badge, Confirm, Dialog, ErrorNote } from "../components/ui";
import type { Inputs, Key } from "../lib/api";
import { fmtCredits, fmtTime } from "../lib/format";
import { useLoad, useSession } from "../lib/hooks";

type Format = NonNullable<Inputs["admin"]["keys"]["create"]["formats"]>[number];
const FORMATS = ["messages", "generate-content", "images", "image-bot", "video", "core", "trpc"] as const satisfies readonly Format[];
// Fails to compile when the server accepts a format this list lacks.
const everyFormat: Exclude<Format, (typeof FORMATS)[number]> extends never ? true : false = true;
void everyFormat;

interface KeyForm {
  name: string;
  admin: boolean;
  formats: Format[];
  models: string;
  budget: string;
  rpm: string;
  tpm: string;
  concurrent: string;
  expires: string;
}

const emptyForm: KeyForm = { name: "", admin: false, formats: [], models: "", budget: "", rpm: "", tpm: "", concurrent: "", expires: "" };

const num = (s: string) => (s.trim() === "" ? 0 : Number(s));

function toFields(f: KeyForm) {
  const bad = [f.budget, f.rpm, f.tpm, f.concurrent].find((v) => v.trim() !== "" && !(Number(v) >= 0));
  if (bad !== undefined) throw new Error(`"${bad}" is not a number of 0 or more`);
  return {
    name: f.name.trim(),
    admin: f.admin,
    formats: f.formats,
    models: f.models
      .split(/[\s,]+/)
      .map((m) => m.trim())
      .filter(Boolean),
    budget: num(f.budget),
    limits: { requestsPerMinute: Math.floor(num(f.rpm)), tokensPerMinute: Math.floor(num(f.tpm)), concurrentRequests: Math.floor(num(f.concurrent)) },
    expireTime: f.expires ? new Date(f.expires).getTime() : null,
  };
}

function fromKey(k: Key): KeyForm {
  const s = (n: number) => (n ? String(n) : "");
  const pad = (n: number) => String(n).padStart(2, "0");
  const local = (ms: number) => {
    const d = new Date(ms);
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
  };
  return {
    name: k.name,
    admin: k.admin,
    formats: k.formats.filter((f): f is Format => (FORMATS as readonly string[]).includes(f)),
    models: k.models.join(", "),
    budget: s(k.budget),
    rpm: s(k.limits.requestsPerMinute),
    tpm: s(k.limits.tokensPerMinute),
    concurrent: s(k.limits.concurrentRequests),
    expires: k.expireTime ? local(k.expireTime) : "",
  };
}

function KeyFields({ form, set, prefix }: { form: KeyForm; set(f: KeyForm): void; prefix: string }) {
  const field = (k: keyof KeyForm) => ({ value: form[k] as string, onChange: (e: { target: { value: string } }) => set({ ...form, [k]: e.target.value }), "data-testid": `${prefix}-${k}` });
  return (
    <div className="form-grid">
      <label>
        Name
        <input {...field("name")} required maxLength={200} />
      </label>
      <label className="check">
        <input type="checkbox" checked={form.admin} onChange={(e) => set({ ...form, admin: e.target.checked })} data-testid={`${prefix}-admin`} />
        Admin key (manages keys, channels, accounts and sees every task)
      </label>
      <fieldset>
        <legend>Wire formats (none checked: all)</legend>
        <div className="checks">
          {FORMATS.map((f) => (
            <label key={f} className="check">
              <input
                type="checkbox"
                checked={form.formats.includes(f)}
                onChange={(e) => set({ ...form, formats: e.target.checked ? [...form.formats, f] : form.formats.filter((x) => x !== f) })}
                data-testid={`${prefix}-format-${f}`}
              />
              {f}
            </label>
          ))}
        </div>
      </fieldset>
      <label>
        Models (globs, comma separated; empty: all)
        <input {...field("models")} placeholder="claude-*, gemini-2.5-*" />
      </label>
      <div className="row">
        <label>
          Budget (credits; empty: unlimited)
          <input {...field("budget")} inputMode="decimal" />
        </label>
        <label>
          Expires
          <input type="datetime-local" {...field("expires")} />
        </label>
      </div>
      <div className="row">
        <label>
          Requests / min
          <input {...field("rpm")} inputMode="numeric" />
        </label>
        <label>
          Tokens / min
          <input {...field("tpm")} inputMode="numeric" />
        </label>
        <label>
          Concurrent
          <input {...field("concurrent")} inputMode="numeric" />
        </label>
      </div>
    </div>
  );
}

export function KeysPage() {
  const { api } = useSession();
  const [showRevoked, setShowRevoked] = useState(false);
  const keys = useLoad(() => api.admin.keys.list.query({ includeRevoked: showRevoked }), [api, showRevoked]);
  const [form, setForm] = useState<KeyForm>(emptyForm);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);
  const [createError, setCreateError] = useState<unknown>();
  const [editing, setEditing] = useState<{ key: Key; form: KeyForm } | null>(null);
  const [editError, setEditError] = useState<unknown>();
  const [revoking, setRevoking] = useState<Key | null>(null);
  const [actionError, setActionError] = useState<unknown>();
  const [copied, setCopied] = useState(false);

  async function create(e: FormEvent) {
    e.preventDefault();
    setCreateError(undefined);
    try {
      const res = await api.admin.keys.create.mutate(toFields(form));
      setCreated({ name: res.key.name, secret: res.secret });
      setCopied(false);
      setForm(emptyForm);
      setCreating(false);
      keys.reload();
    } catch (err) {
      setCreateError(err);
    }
  }

  async function save(e: FormEvent) {
    e.preventDefault();
    if (!editing) return;
    setEditError(undefined);
    try {
      await api.admin.keys.update.mutate({ id: editing.key.id, ...toFields(editing.form) });
      setEditing(null);
      keys.reload();
    } catch (err) {
      setEditError(err);
    }
  }

  async function revoke(k: Key) {
    setRevoking(null);
    setActionError(undefined);
    try {
      await api.admin.keys.revoke.mutate({ id: k.id });
      keys.reload();
    } catch (err) {
      setActionError(err);
    }
  }

  return (
    <div className="stack">
      {created ? (
        <section className="card secret" data-testid="key-secret-panel">
          <h2>Key “{created.name}” created</h2>
          <p>Copy the secret now: it is shown only this once (the gateway keeps only its hash).</p>
          <div className="row">
            <code className="grow secret-value" data-testid="key-secret">
              {created.secret}
            </code>
            <button
              type="button"
              onClick={() => {
                void navigator.clipboard?.writeText(created.secret).then(() => setCopied(true), () => undefined);
              }}
            >
              {copied ? "Copied" : "Copy"}
            </button>
            <button type="button" className="primary" onClick={() => setCreated(null)} data-testid="key-secret-dismiss">
              Done
            </button>
          </div>
        </section>
      ) : null}

      <section className="card">
        <div className="card-head">
          <h2>API keys</h2>
          <div className="row">
            <label className="check">
              <input type="checkbox" checked={showRevoked} onChange={(e) => setShowRevoked(e.target.checked)} data-testid="key-show-revoked" />
              Show revoked
            </label>
            <button type="button" className="primary" onClick={() => (setCreating(true), setCreateError(undefined))} data-testid="key-new">
              New key
            </button>
          </div>
        </div>
        <ErrorNote error={keys.error ?? actionError} testId="keys-error" />
        <table className="table" data-testid="key-list">
          <thead>
            <tr>
              <th>Name</th>
              <th>Prefix</th>
              <th>Scope</th>
              <th>Spent / budget</th>
              <th>Limits</th>
              <th>Created</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {(keys.data ?? []).map((k) => (
              <tr key={k.id} data-testid="key-row" data-key-id={k.id} data-name={k.name} data-revoked={k.revokeTime ? "true" : "false"} className={k.revokeTime ? "revoked" : ""}>
                <td>
                  {k.name} {k.admin ? <Badge tone="info">admin</Badge> : null} {k.revokeTime ? <Badge tone="bad" testId="key-revoked">revoked</Badge> : null}
                  {k.expireTime ? <div className="small muted">expires {fmtTime(k.expireTime)}</div> : null}
                </td>
                <td className="mono small">{k.prefix}…</td>
                <td className="small" data-testid="key-scope">
                  {k.formats.length ? k.formats.join(", ") : "all formats"}
                  <br />
                  <span className="muted">{k.models.length ? k.models.join(", ") : "all models"}</span>
                </td>
                <td className="small" data-testid="key-budget">
                  {fmtCredits(k.spent)} / {k.budget ? fmtCredits(k.budget) : "∞"}
                </td>
                <td className="small muted" data-testid="key-limits">
                  {[k.limits.requestsPerMinute && `${k.limits.requestsPerMinute} rpm`, k.limits.tokensPerMinute && `${k.limits.tokensPerMinute} tpm`, k.limits.concurrentRequests && `${k.limits.concurrentRequests} at once`]
                    .filter(Boolean)
                    .join(" · ") || "none"}
                </td>
                <td className="small muted">{fmtTime(k.createTime)}</td>
                <td className="actions">
                  {!k.revokeTime ? (
                    <>
                      <button type="button" className="small" onClick={() => (setEditing({ key: k, form: fromKey(k) }), setEditError(undefined))} data-testid="key-edit">
                        Edit
                      </button>
                      <button type="button" className="small danger" onClick={() => setRevoking(k)} data-testid="key-revoke">
                        Revoke
                      </button>
                    </>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <Dialog title="New API key" open={creating} onClose={() => setCreating(false)} testId="key-create-dialog">
        <form onSubmit={create}>
          <KeyFields form={form} set={setForm} prefix="key-create" />
          <ErrorNote error={createError} testId="key-create-error" />
          <div className="row end">
            <button type="button" className="ghost" onClick={() => setCreating(false)}>
              Cancel
            </button>
            <button type="submit" className="primary" data-testid="key-create-submit">
              Create key
            </button>
          </div>
        </form>
      </Dialog>

      <Dialog title={`Edit key ${editing?.key.name ?? ""}`} open={!!editing} onClose={() => setEditing(null)} testId="key-edit-dialog">
        {editing ? (
          <form onSubmit={save}>
            <KeyFields form={editing.form} set={(f) => setEditing({ ...editing, form: f })} prefix="key-edit" />
            <ErrorNote error={editError} testId="key-edit-error" />
            <div className="row end">
              <button type="button" className="ghost" onClick={() => setEditing(null)}>
                Cancel
              </button>
              <button type="submit" className="primary" data-testid="key-edit-save">
                Save
              </button>
            </div>
          </form>
        ) : null}
      </Dialog>

      <Confirm
        open={!!revoking}
        title="Revoke this key?"
        message={
          <>
            Clients using <b>{revoking?.name}</b> ({revoking?.prefix}…) are refused from now on. This cannot be undone.
          </>
        }
        confirmLabel="Revoke"
        onConfirm={() => revoking && void revoke(revoking)}
        onCancel={() => setRevoking(null)}
      />
    </div>
  );
}
