// A minimal router over the History API: the app lives under /console/ and the
// gateway answers index.html for every path below it.
import { useEffect, useState } from "react";

export const BASE = "/console";

export function currentPath(): string {
  const p = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname;
  return p.replace(/\/+$/, "") || "/";
}

/** Goes to a path below /console; `to` may carry its own query ("/usage?key=..."). */
export function navigate(to: string, replace = false): void {
  const url = BASE + to;
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  dispatchEvent(new PopStateEvent("popstate"));
}

export function usePath(): string {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const on = () => setPath(currentPath());
    addEventListener("popstate", on);
    return () => removeEventListener("popstate", on);
  }, []);
  return path;
}
