import { useCallback, useMemo, useState } from "react";
import { createApi } from "./lib/api";
import { SessionContext, type Session } from "./lib/hooks";
import { navigate, usePath } from "./lib/nav";
import { forgetKey, saveKey, savedKey } from "./lib/session";
import { ChannelsPage } from "./pages/channels";
import { KeysPage } from "./pages/keys";
import { PlaygroundPage } from "./pages/playground";
import { SignIn } from "./pages/sign-in";
import { TasksPage } from "./pages/tasks";
import { UsagePage } from "./pages/usage";

const PAGES = [
  { path: "/tasks", label: "Tasks" },
  { path: "/playground", label: "Playground" },
  { path: "/keys", label: "Keys" },
  { path: "/channels", label: "Channels & accounts" },
  { path: "/usage", label: "Usage" },
] as const;

export function App() {
  const [key, setKey] = useState(savedKey);
  const [notice, setNotice] = useState("");
  // Bumped by a click on the nav: the page starts afresh (and reloads) even when it is already open.
  const [visit, setVisit] = useState(0);
  const path = usePath();

  const signOut = useCallback((reason?: string) => {
    forgetKey();
    setKey("");
    setNotice(reason ?? "");
  }, []);
  const session = useMemo<Session | null>(() => (key ? { api: createApi(key), signOut } : null), [key, signOut]);

  if (!session) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={(k) => {
          saveKey(k);
          setNotice("");
          setKey(k);
          if (path === "/") navigate("/tasks", true);
        }}
      />
    );
  }

  const page = PAGES.find((p) => path === p.path || path.startsWith(`${p.path}/`))?.path ?? "/tasks";
  return (
    <SessionContext.Provider value={session}>
      <div className="shell">
        <header className="topbar">
          <div className="brand">
            omnigate <span>console</span>
          </div>
          <nav>
            {PAGES.map((p) => (
              <a
                key={p.path}
                href={`/console${p.path}`}
                className={page === p.path ? "active" : ""}
                data-testid={`nav-${p.path.slice(1)}`}
                onClick={(e) => {
                  e.preventDefault();
                  setVisit((v) => v + 1);
                  navigate(p.path);
                }}
              >
                {p.label}
              </a>
            ))}
          </nav>
          <button type="button" className="ghost" onClick={() => signOut()} data-testid="signout">
            Sign out
          </button>
        </header>
        <main className="content" key={visit}>
          {page === "/tasks" && <TasksPage path={path} />}
          {page === "/playground" && <PlaygroundPage />}
          {page === "/keys" && <KeysPage />}
          {page === "/channels" && <ChannelsPage />}
          {page === "/usage" && <UsagePage />}
        </main>
      </div>
    </SessionContext.Provider>
  );
}
