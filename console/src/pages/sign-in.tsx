import { useState, type FormEvent } from "react";
import { createApi, errorCode, errorMessage } from "../lib/api";

/** Checks the key with an admin-only call before keeping it. */
export function SignIn({ notice, onSignedIn }: { notice: string; onSignedIn(key: string): void }) {
  const [key, setKey] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const k = key.trim();
    if (!k) return setError("Enter an admin API key.");
    setBusy(true);
    setError("");
    try {
      await createApi(k).admin.channels.list.query();
      onSignedIn(k);
    } catch (err) {
      const code = errorCode(err);
      setError(
        code === "UNAUTHORIZED"
          ? "This key is not valid (unknown, revoked or expired)."
          : code === "FORBIDDEN"
            ? "This key is valid but is not an admin key."
            : `Could not sign in: ${errorMessage(err)}`,
      );
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="signin">
      <form className="card signin-card" onSubmit={submit} autoComplete="off">
        <h1>
          omnigate <span>console</span>
        </h1>
        <p className="muted">Sign in with an admin API key. It stays in this browser tab only.</p>
        {notice ? <div className="note warn">{notice}</div> : null}
        <label>
          Admin key
          <input type="password" value={key} onChange={(e) => setKey(e.target.value)} placeholder="sk-..." autoFocus data-testid="signin-key" />
        </label>
        {error ? (
          <div className="note error" role="alert" data-testid="signin-error">
            {error}
          </div>
        ) : null}
        <button type="submit" className="primary" disabled={busy} data-testid="signin-submit">
          {busy ? "Checking…" : "Sign in"}
        </button>
      </form>
    </div>
  );
}
