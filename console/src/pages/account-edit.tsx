// Edit an image-bot account: concurrency and queue size, modes, bots, remix,
// remark and the upstream identifiers (admin.accounts.update). Values are
// checked here first; what the server still refuses shows beside its field.
import { useState, type FormEvent } from "react";
import { Dialog, ErrorNote, Field, FormButtons } from "../components/ui";
import type { Account, Inputs } from "../lib/api";
import { serverFieldErrors, wholeNumber, type FieldErrors } from "../lib/form-errors";
import { useSession } from "../lib/hooks";

type Patch = Inputs["admin"]["accounts"]["update"];
type Mode = NonNullable<Patch["modes"]>[number];
type Bot = NonNullable<Patch["botTypes"]>[number];
const MODES = ["RELAX", "FAST", "TURBO"] as const satisfies readonly Mode[];
const BOTS = [
  { value: "PRIMARY_BOT", label: "Primary" },
  { value: "ANIME_BOT", label: "Anime" },
] as const satisfies readonly { value: Bot; label: string }[];
const FIELDS = ["concurrency", "queueSize", "modes", "botTypes", "remark", "remix", "remixAutoSubmit", "channelId", "instanceId"] as const;
type FieldName = (typeof FIELDS)[number];
const REMARK_MAX = 500;

interface Form {
  concurrency: string;
  queueSize: string;
  modes: Mode[];
  botTypes: Bot[];
  remark: string;
  remix: boolean;
  remixAutoSubmit: boolean;
  channelId: string;
  instanceId: string;
}

const formOf = (a: Account): Form => ({
  concurrency: String(a.concurrency),
  queueSize: String(a.queueSize),
  modes: a.modes.filter((m): m is Mode => (MODES as readonly string[]).includes(m)),
  botTypes: a.botTypes.filter((b): b is Bot => BOTS.some((x) => x.value === b)),
  remark: a.remark,
  remix: a.remix,
  remixAutoSubmit: a.remixAutoSubmit,
  channelId: a.channelId,
  instanceId: a.instanceId,
});

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));

/** The changed fields as an update, or the errors to show. */
function toPatch(a: Account, f: Form): { patch: Patch; errors?: undefined } | { errors: FieldErrors<FieldName> } {
  const errors: FieldErrors<FieldName> = {};
  const patch: Patch = { id: a.id };
  const c = wholeNumber(f.concurrency, 1, 100);
  if ("error" in c) errors.concurrency = c.error;
  else if (c.value !== a.concurrency) patch.concurrency = c.value;
  const q = wholeNumber(f.queueSize, 0, 10_000);
  if ("error" in q) errors.queueSize = q.error;
  else if (q.value !== a.queueSize) patch.queueSize = q.value;
  if (f.modes.length === 0) errors.modes = "Choose at least one mode";
  else if (!sameSet(f.modes, a.modes)) patch.modes = MODES.filter((m) => f.modes.includes(m));
  if (f.botTypes.length === 0) errors.botTypes = "Choose at least one bot";
  else if (!sameSet(f.botTypes, a.botTypes)) patch.botTypes = BOTS.map((b) => b.value).filter((b) => f.botTypes.includes(b));
  if (f.remark.length > REMARK_MAX) errors.remark = `At most ${REMARK_MAX} characters (now ${f.remark.length})`;
  else if (f.remark !== a.remark) patch.remark = f.remark;
  if (f.remix !== a.remix) patch.remix = f.remix;
  if (f.remixAutoSubmit !== a.remixAutoSubmit) patch.remixAutoSubmit = f.remixAutoSubmit;
  if (f.channelId.trim() !== a.channelId) patch.channelId = f.channelId.trim();
  if (f.instanceId.trim() !== a.instanceId) patch.instanceId = f.instanceId.trim();
  return Object.keys(errors).length ? { errors } : { patch };
}

export function AccountEditDialog({ account, onClose, onSaved }: { account: Account | null; onClose(): void; onSaved(a: Account): void }) {
  return (
    <Dialog title={`Edit account ${account?.id ?? ""}`} open={!!account} onClose={onClose} testId="account-edit-dialog">
      {account ? <AccountForm key={account.id} account={account} onClose={onClose} onSaved={onSaved} /> : null}
    </Dialog>
  );
}

function AccountForm({ account, onClose, onSaved }: { account: Account; onClose(): void; onSaved(a: Account): void }) {
  const { api } = useSession();
  const [form, setForm] = useState(() => formOf(account));
  const [errors, setErrors] = useState<FieldErrors<FieldName>>({});
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const set = <K extends keyof Form>(k: K, v: Form[K]) => {
    setForm((f) => ({ ...f, [k]: v }));
    setErrors((e) => ({ ...e, [k]: undefined }));
  };
  const toggle = <T extends string>(list: T[], v: T, on: boolean) => (on ? [...list, v] : list.filter((x) => x !== v));
  const text = (k: "concurrency" | "queueSize" | "remark" | "channelId" | "instanceId") => ({
    value: form[k],
    onChange: (e: { target: { value: string } }) => set(k, e.target.value),
    "aria-invalid": errors[k] ? true : undefined,
    "data-testid": `account-edit-${k}`,
  });

  async function save(e: FormEvent) {
    e.preventDefault();
    setError(undefined);
    const r = toPatch(account, form);
    if (r.errors) return setErrors(r.errors);
    setErrors({});
    if (Object.keys(r.patch).length === 1) return onClose();
    setBusy(true);
    try {
      onSaved(await api.admin.accounts.update.mutate(r.patch));
    } catch (err) {
      const fields = serverFieldErrors(err, FIELDS);
      if (fields) setErrors(fields);
      else setError(err);
    } finally {
      setBusy(false);
    }
  }

  const local = account.channel === "local";
  return (
    <form onSubmit={save} noValidate data-testid="account-edit-form">
      <div className="row fields">
        <Field label="Concurrency" error={errors.concurrency} hint="tasks running at once (1–100)" testId="account-edit-concurrency">
          <input {...text("concurrency")} inputMode="numeric" />
        </Field>
        <Field label="Queue size" error={errors.queueSize} hint="tasks waiting beyond that (0–10,000)" testId="account-edit-queueSize">
          <input {...text("queueSize")} inputMode="numeric" />
        </Field>
      </div>
      <div className="row fields">
        <fieldset className={errors.modes ? "invalid" : ""}>
          <legend>Modes</legend>
          <div className="checks">
            {MODES.map((m) => (
              <label key={m} className="check">
                <input type="checkbox" checked={form.modes.includes(m)} onChange={(e) => set("modes", toggle(form.modes, m, e.target.checked))} data-testid={`account-edit-mode-${m}`} />
                {m.toLowerCase()}
              </label>
            ))}
          </div>
          {errors.modes ? (
            <span className="field-error" role="alert" data-testid="account-edit-modes-error">
              {errors.modes}
            </span>
          ) : null}
        </fieldset>
        <fieldset className={errors.botTypes ? "invalid" : ""}>
          <legend>Bots</legend>
          <div className="checks">
            {BOTS.map((b) => (
              <label key={b.value} className="check">
                <input type="checkbox" checked={form.botTypes.includes(b.value)} onChange={(e) => set("botTypes", toggle(form.botTypes, b.value, e.target.checked))} data-testid={`account-edit-bot-${b.value}`} />
                {b.label}
              </label>
            ))}
          </div>
          {errors.botTypes ? (
            <span className="field-error" role="alert" data-testid="account-edit-botTypes-error">
              {errors.botTypes}
            </span>
          ) : null}
        </fieldset>
      </div>
      <fieldset>
        <legend>Remix</legend>
        <label className="check">
          <input type="checkbox" checked={form.remix} onChange={(e) => set("remix", e.target.checked)} data-testid="account-edit-remix" />
          Variations, rerolls and pans ask for a prompt first (MODAL)
        </label>
        <label className="check">
          <input type="checkbox" checked={form.remixAutoSubmit} disabled={!form.remix} onChange={(e) => set("remixAutoSubmit", e.target.checked)} data-testid="account-edit-remixAutoSubmit" />
          …unless auto-submitted with the parent's prompt
        </label>
      </fieldset>
      <Field label="Remark" error={errors.remark} testId="account-edit-remark">
        <input {...text("remark")} placeholder="a note for operators" />
      </Field>
      <div className="row fields">
        <Field label="Upstream channel ID" error={errors.channelId} hint={local ? "not used by the local engine" : "the midjourney-proxy account's channel"} testId="account-edit-channelId">
          <input {...text("channelId")} className="mono" />
        </Field>
        <Field label="Instance ID" error={errors.instanceId} hint={local ? "not used by the local engine" : "shown on its tasks as discordInstanceId"} testId="account-edit-instanceId">
          <input {...text("instanceId")} className="mono" />
        </Field>
      </div>
      <ErrorNote error={error} testId="account-edit-error" />
      <FormButtons onCancel={onClose} disabled={busy} testId="account-edit-save">
        {busy ? "Saving…" : "Save"}
      </FormButtons>
    </form>
  );
}
