import { useEffect, useRef, type ReactNode } from "react";
import { errorMessage } from "../lib/api";

export function Progress({ value, phase, testId = "task-progress" }: { value: number; phase?: string; testId?: string }) {
  const v = Math.max(0, Math.min(100, Math.round(value)));
  return (
    <div className={`progress phase-${phase ?? "running"}`} role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={v} data-testid={testId}>
      <div className="progress-fill" style={{ width: `${v}%` }} />
      <span className="progress-label">{v}%</span>
    </div>
  );
}

export function Badge({ children, tone = "neutral", testId }: { children: ReactNode; tone?: string; testId?: string }) {
  return (
    <span className={`badge tone-${tone}`} data-testid={testId}>
      {children}
    </span>
  );
}

export function ErrorNote({ error, testId = "error" }: { error: unknown; testId?: string }) {
  if (!error) return null;
  return (
    <div className="note error" role="alert" data-testid={testId}>
      {errorMessage(error)}
    </div>
  );
}

/** A modal dialog (the native <dialog>: focus trap and Escape for free). */
export function Dialog({ title, open, onClose, children, testId }: { title: string; open: boolean; onClose(): void; children: ReactNode; testId?: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog ref={ref} className="dialog" onClose={onClose} data-testid={testId}>
      {open ? (
        <>
          <header className="dialog-head">
            <h3>{title}</h3>
            <button type="button" className="ghost" aria-label="Close" onClick={onClose}>
              ×
            </button>
          </header>
          <div className="dialog-body">{children}</div>
        </>
      ) : null}
    </dialog>
  );
}

/** "Are you sure?" before something that cannot be undone. */
export function Confirm({ open, title, message, confirmLabel, onConfirm, onCancel }: { open: boolean; title: string; message: ReactNode; confirmLabel: string; onConfirm(): void; onCancel(): void }) {
  return (
    <Dialog title={title} open={open} onClose={onCancel} testId="confirm-dialog">
      <p>{message}</p>
      <div className="row end">
        <button type="button" className="ghost" onClick={onCancel} data-testid="confirm-cancel">
          Cancel
        </button>
        <button type="button" className="danger" onClick={onConfirm} data-testid="confirm-ok">
          {confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}

export function Switch({ checked, onChange, disabled, testId, label }: { checked: boolean; onChange(v: boolean): void; disabled?: boolean; testId?: string; label: string }) {
  return (
    <button
      type="button"
      role="switch"
      aria-checked={checked}
      aria-label={label}
      className={`switch ${checked ? "on" : "off"}`}
      disabled={disabled}
      onClick={() => onChange(!checked)}
      data-testid={testId}
    >
      <span className="knob" />
    </button>
  );
}

export const PHASE_TONE: Record<string, string> = { queued: "neutral", running: "info", waiting: "warn", succeeded: "ok", failed: "bad", cancelled: "muted" };

/** A labelled form field with its error (or a hint) beneath it. */
export function Field({ label, error, hint, children, testId, className = "" }: { label: ReactNode; error?: string | undefined; hint?: ReactNode; children: ReactNode; testId?: string; className?: string }) {
  return (
    <label className={`field ${error ? "invalid" : ""} ${className}`}>
      {label}
      {children}
      {error ? (
        <span className="field-error" role="alert" data-testid={testId ? `${testId}-error` : undefined}>
          {error}
        </span>
      ) : hint ? (
        <span className="hint">{hint}</span>
      ) : null}
    </label>
  );
}

/** A labelled <select> of `options`, for filters. */
export function SelectField({ label, value, options, onChange, testId }: { label: string; value: string; options: readonly { value: string; label: string }[]; onChange(v: string): void; testId: string }) {
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onChange(e.target.value)} data-testid={testId}>
        {options.map((x) => (
          <option key={x.value} value={x.value}>
            {x.label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The one row of a table with nothing to list. */
export function EmptyRow({ colSpan, testId, children }: { colSpan: number; testId?: string; children: ReactNode }) {
  return (
    <tr>
      <td colSpan={colSpan} className="empty" data-testid={testId}>
        {children}
      </td>
    </tr>
  );
}

/** Cancel and submit at the foot of a dialog's form. */
export function FormButtons({ onCancel, disabled, testId, children }: { onCancel(): void; disabled?: boolean; testId: string; children: ReactNode }) {
  return (
    <div className="row end">
      <button type="button" className="ghost" onClick={onCancel}>
        Cancel
      </button>
      <button type="submit" className="primary" disabled={disabled} data-testid={testId}>
        {children}
      </button>
    </div>
  );
}
