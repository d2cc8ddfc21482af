import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { currentToken, developmentToken, signIn, signOut } from "./api/client";
import { Overview } from "./pages/Overview";
import { Leads, LeadPage } from "./pages/Leads";
import { Conversations, Thread } from "./pages/Conversations";
import { AutomationRuns, Automations } from "./pages/Automations";
import { Billing } from "./pages/Billing";
import { Team } from "./pages/Team";
import { ApiKeys } from "./pages/ApiKeys";
import { AuditLog } from "./pages/AuditLog";
import "./styles.css";

/** Hash routes (#/leads, #/leads/<id>): the static site needs no rewrite rules and no token is ever in the path. */
function useRoute(): string {
  const [route, setRoute] = useState(location.hash.slice(1) || "/");
  useEffect(() => {
    const update = () => setRoute(location.hash.slice(1) || "/");
    addEventListener("hashchange", update);
    return () => removeEventListener("hashchange", update);
  }, []);
  return route;
}

function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [token, setToken] = useState("");
  return (
    <main class="signin">
      <h1>Sign in</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (!token.trim()) return;
          signIn(token);
          onSignedIn();
        }}
      >
        <label for="token">Access token</label>
        <textarea id="token" rows={4} value={token} onInput={(event) => setToken(event.currentTarget.value)} />
        <p class="hint">Kept in this tab only (sessionStorage); closing the tab signs you out.</p>
        <button type="submit">Sign in</button>
      </form>
    </main>
  );
}

const navigation = [
  ["/", "Overview"],
  ["/leads", "Leads"],
  ["/conversations", "Conversations"],
  ["/automations", "Automations"],
  ["/billing", "Billing"],
  ["/team", "Team"],
  ["/api-keys", "API keys"],
  ["/audit-log", "Audit log"],
] as const;

/** The page for a route: #/, #/leads, #/leads/<id>, #/conversations, #/conversations/<id>. */
function Page({ route }: { route: string }) {
  const [, section, id] = route.split("/").map((part) => decodeURIComponent(part));
  if (section === "leads") return id ? <LeadPage id={id} /> : <Leads />;
  if (section === "conversations") return id ? <Thread id={id} /> : <Conversations />;
  if (section === "automations") return id ? <AutomationRuns id={id} /> : <Automations />;
  if (section === "billing") return <Billing />;
  if (section === "team") return <Team />;
  if (section === "api-keys") return <ApiKeys />;
  if (section === "audit-log") return <AuditLog />;
  return <Overview />;
}

function App() {
  const route = useRoute();
  const [signedIn, setSignedIn] = useState(currentToken() !== null);
  const [checkedDevelopmentToken, setChecked] = useState(signedIn);
  useEffect(() => {
    if (signedIn) return;
    void developmentToken().then((token) => {
      if (token) {
        signIn(token);
        setSignedIn(true);
      }
      setChecked(true);
    });
  }, []);
  if (!checkedDevelopmentToken) return <p role="status">Loading…</p>;
  if (!signedIn) return <SignIn onSignedIn={() => setSignedIn(true)} />;
  return (
    <>
      <header class="top">
        <strong>Leads dashboard</strong>
        <nav aria-label="Main">
          {navigation.map(([path, label]) => (
            <a href={`#${path}`} aria-current={route === path || (path !== "/" && route.startsWith(path)) ? "page" : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            signOut();
            setSignedIn(false);
          }}
        >
          Sign out
        </button>
      </header>
      <main>
        <Page route={route} />
      </main>
    </>
  );
}

render(<App />, document.getElementById("root")!);
