import { createContext, useCallback, useContext, useEffect, useRef, useState, type FormEvent } from "react";
import { errorCode, type Api } from "./api";

export interface Session {
  api: Api;
  /** Ends the session (back to sign-in), with a reason to show there. */
  signOut(reason?: string): void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error("no session");
  return s;
}

/** Sends the operator back to sign-in when the key stopped working. */
export function useAuthGuard(): (err: unknown) => void {
  const { signOut } = useSession();
  return useCallback(
    (err: unknown) => {
      if (errorCode(err) === "UNAUTHORIZED") signOut("The key is no longer valid. Sign in again.");
    },
    [signOut],
  );
}

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload(): void;
}

/** Runs `load` now and whenever `deps` change (or reload() is called); the last call wins. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: undefined, loading: true });
  const [tick, setTick] = useState(0);
  const guard = useAuthGuard();
  const seq = useRef(0);
  useEffect(() => {
    const n = ++seq.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => n === seq.current && setState({ data, error: undefined, loading: false }),
      (error: unknown) => {
        if (n !== seq.current) return;
        guard(error);
        setState((s) => ({ ...s, error, loading: false }));
      },
    );
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((x) => x + 1), []);
  return { ...state, reload };
}

/** Calls fn every `ms` while the tab is visible. */
export function useInterval(fn: () => void, ms: number | null): void {
  const saved = useRef(fn);
  saved.current = fn;
  useEffect(() => {
    if (ms === null) return;
    const id = setInterval(() => {
      if (document.visibilityState === "visible") saved.current();
    }, ms);
    return () => clearInterval(id);
  }, [ms]);
}

export interface Submit<T> {
  result: T | undefined;
  error: unknown;
  busy: boolean;
  submit(e: FormEvent): Promise<void>;
}

/** A form that runs one call on submit: busy while it runs, then its result or its error. The last result stays shown while a new call runs when `keepResult` is set. */
export function useSubmit<T>(run: () => Promise<T>, { keepResult = false } = {}): Submit<T> {
  const [result, setResult] = useState<T>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    if (!keepResult) setResult(undefined);
    try {
      setResult(await run());
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  return { result, error, busy, submit };
}
