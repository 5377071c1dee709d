// Keys: list (spent against budget and limits at a glance, a link to each
// key's usage), create (the secret is shown once), edit scopes, budget and
// limits, revoke.
import { useState, type FormEvent } from "react";
import { BudgetMeter, limitsText } from "../components/key-facts";
import { Badge, Confirm, Dialog, ErrorNote, Field, FormButtons } from "../components/ui";
import type { Inputs, Key } from "../lib/api";
import { serverFieldErrors, type FieldErrors } from "../lib/form-errors";
import { fmtTime } from "../lib/format";
import { useInterval, useLoad, useSession } from "../lib/hooks";
import { navigate } from "../lib/nav";

type Format = NonNullable<Inputs["admin"]["keys"]["create"]["formats"]>[number];
const FORMATS = ["messages", "generate-content", "openai-chat", "openai-responses", "images", "image-bot", "video", "core", "trpc", "embeddings"] as const satisfies readonly Format[];
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

type Errors = FieldErrors<keyof KeyForm>;
/** Server field names (tRPC input paths) -> form fields. */
const SERVER_FIELDS = { name: "name", formats: "formats", models: "models", budget: "budget", limits: "rpm", expireTime: "expires" } as const satisfies Record<string, keyof KeyForm>;

/** The form as create/update fields, or the errors to show beside the fields. */
function toFields(f: KeyForm, isNew: boolean) {
  const errors: Errors = {};
  const amount = (k: "budget" | "rpm" | "tpm" | "concurrent", whole: boolean) => {
    const v = f[k].trim();
    if (v === "") return 0;
    const n = Number(v);
    if (!(n >= 0) || (whole && !Number.isInteger(n))) errors[k] = `Enter ${whole ? "a whole number" : "a number"} of 0 or more (empty: ${k === "budget" ? "unlimited" : "no limit"})`;
    return n;
  };
  const expireTime = f.expires ? new Date(f.expires).getTime() : null;
  if (!f.name.trim()) errors.name = "Give the key a name";
  if (expireTime !== null && !(expireTime > 0)) errors.expires = "Not a valid date";
  else if (isNew && expireTime !== null && expireTime <= Date.now()) errors.expires = "Choose a time in the future";
  const fields = {
    name: f.name.trim(),
    admin: f.admin,
    formats: f.formats,
    models: f.models
      .split(/[\s,]+/)
      .map((m) => m.trim())
      .filter(Boolean),
    budget: amount("budget", false),
    limits: { requestsPerMinute: amount("rpm", true), tokensPerMinute: amount("tpm", true), concurrentRequests: amount("concurrent", true) },
    expireTime,
  };
  return Object.keys(errors).length ? { errors } : { fields };
}

/** What the server refused, beside its field; null when it is about none. */
function keyServerErrors(err: unknown): Errors | null {
  const byServer = serverFieldErrors(err, Object.keys(SERVER_FIELDS) as (keyof typeof SERVER_FIELDS)[]);
  if (!byServer) return null;
  const out: Errors = {};
  for (const [k, v] of Object.entries(byServer)) out[SERVER_FIELDS[k as keyof typeof SERVER_FIELDS]] = v;
  return out;
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

function KeyFields({ form, set, prefix, errors }: { form: KeyForm; set(f: KeyForm): void; prefix: string; errors: Errors }) {
  const field = (k: keyof KeyForm) => ({
    value: form[k] as string,
    onChange: (e: { target: { value: string } }) => set({ ...form, [k]: e.target.value }),
    "aria-invalid": errors[k] ? true : undefined,
    "data-testid": `${prefix}-${k}`,
  });
  const at = (k: keyof KeyForm) => ({ error: errors[k], testId: `${prefix}-${k}` });
  return (
    <div className="form-grid">
      <Field label="Name" {...at("name")}>
        <input {...field("name")} maxLength={200} />
      </Field>
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
      <Field label="Models (globs, comma separated; empty: all)" {...at("models")}>
        <input {...field("models")} placeholder="claude-*, gemini-2.5-*" />
      </Field>
      <div className="row fields">
        <Field label="Budget (credits; empty: unlimited)" {...at("budget")}>
          <input {...field("budget")} inputMode="decimal" />
        </Field>
        <Field label="Expires (empty: never)" {...at("expires")}>
          <input type="datetime-local" {...field("expires")} />
        </Field>
      </div>
      <div className="row fields">
        <Field label="Requests / min" {...at("rpm")}>
          <input {...field("rpm")} inputMode="numeric" placeholder="no limit" />
        </Field>
        <Field label="Tokens / min" {...at("tpm")}>
          <input {...field("tpm")} inputMode="numeric" placeholder="no limit" />
        </Field>
        <Field label="Concurrent requests" {...at("concurrent")}>
          <input {...field("concurrent")} inputMode="numeric" placeholder="no limit" />
        </Field>
      </div>
    </div>
  );
}

/** A failed save: errors beside fields, or one above the buttons. */
interface FormError {
  fields?: Errors;
  error?: unknown;
}
const formError = (err: unknown): FormError => {
  const fields = keyServerErrors(err);
  return fields ? { fields } : { error: err };
};

export function KeysPage() {
  const { api } = useSession();
  const [showRevoked, setShowRevoked] = useState(false);
  const keys = useLoad(() => api.admin.keys.list.query({ includeRevoked: showRevoked }), [api, showRevoked]);
  // Spend moves while clients work.
  useInterval(keys.reload, 10_000);
  const [form, setForm] = useState<KeyForm>(emptyForm);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);
  const [createError, setCreateError] = useState<FormError>({});
  const [editing, setEditing] = useState<{ key: Key; form: KeyForm } | null>(null);
  const [editError, setEditError] = useState<FormError>({});
  const [revoking, setRevoking] = useState<Key | null>(null);
  const [actionError, setActionError] = useState<unknown>();
  const [copied, setCopied] = useState(false);

  async function create(e: FormEvent) {
    e.preventDefault();
    const r = toFields(form, true);
    setCreateError(r.errors ? { fields: r.errors } : {});
    if (!r.fields) return;
    try {
      const res = await api.admin.keys.create.mutate(r.fields);
      setCreated({ name: res.key.name, secret: res.secret });
      setCopied(false);
      setForm(emptyForm);
      setCreating(false);
      keys.reload();
    } catch (err) {
      setCreateError(formError(err));
    }
  }

  async function save(e: FormEvent) {
    e.preventDefault();
    if (!editing) return;
    const r = toFields(editing.form, false);
    setEditError(r.errors ? { fields: r.errors } : {});
    if (!r.fields) return;
    try {
      await api.admin.keys.update.mutate({ id: editing.key.id, ...r.fields });
      setEditing(null);
      keys.reload();
    } catch (err) {
      setEditError(formError(err));
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
            <button type="button" className="primary" onClick={() => (setCreating(true), setCreateError({}))} data-testid="key-new">
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
                <td className="mono small nowrap">{k.prefix}…</td>
                <td className="small" data-testid="key-scope">
                  {k.formats.length ? k.formats.join(", ") : "all formats"}
                  <br />
                  <span className="muted">{k.models.length ? k.models.join(", ") : "all models"}</span>
                </td>
                <td className="small w-budget">
                  <BudgetMeter spent={k.spent} budget={k.budget} />
                </td>
                <td className={`small ${limitsText(k.limits) === "no limits" ? "muted" : ""}`} data-testid="key-limits">
                  {limitsText(k.limits)}
                </td>
                <td className="small muted">{fmtTime(k.createTime)}</td>
                <td className="actions">
                  <a
                    className="button small"
                    href={`/console/usage?key=${encodeURIComponent(k.id)}`}
                    onClick={(e) => (e.preventDefault(), navigate(`/usage?key=${encodeURIComponent(k.id)}`))}
                    data-testid="key-usage"
                  >
                    Usage
                  </a>
                  {!k.revokeTime ? (
                    <>
                      <button type="button" className="small" onClick={() => (setEditing({ key: k, form: fromKey(k) }), setEditError({}))} data-testid="key-edit">
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
        <form onSubmit={create} noValidate>
          <KeyFields form={form} set={setForm} prefix="key-create" errors={createError.fields ?? {}} />
          <ErrorNote error={createError.error} testId="key-create-error" />
          <FormButtons onCancel={() => setCreating(false)} testId="key-create-submit">
            Create key
          </FormButtons>
        </form>
      </Dialog>

      <Dialog title={`Edit key ${editing?.key.name ?? ""}`} open={!!editing} onClose={() => setEditing(null)} testId="key-edit-dialog">
        {editing ? (
          <form onSubmit={save} noValidate>
            <KeyFields form={editing.form} set={(f) => setEditing({ ...editing, form: f })} prefix="key-edit" errors={editError.fields ?? {}} />
            <ErrorNote error={editError.error} testId="key-edit-error" />
            <FormButtons onCancel={() => setEditing(null)} testId="key-edit-save">
              Save
            </FormButtons>
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
