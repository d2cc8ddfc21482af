import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { whenSessionEnds } from "./api/client";
import { pendingInvitation, takeInvitationFromAddress } from "./api/invitation";
import { finishSignIn, isSignedIn, signOut, startSignIn } from "./api/session";
import { AcceptInvitation } from "./pages/AcceptInvitation";
import { Overview } from "./pages/Overview";
import { Leads, LeadPage } from "./pages/Leads";
import { Conversations, Thread } from "./pages/Conversations";
import { AutomationRuns, Automations } from "./pages/Automations";
import { AutomationEditor } from "./pages/automations/Editor";
import { Billing } from "./pages/Billing";
import { Team } from "./pages/Team";
import { Routing } from "./pages/Routing";
import { ApiKeys } from "./pages/ApiKeys";
import { AuditLog } from "./pages/AuditLog";
import { Suppressions } from "./pages/Suppressions";
import { SettingsPage } from "./pages/Settings";
import { Webhooks } from "./pages/Webhooks";
import { Numbers } from "./pages/Numbers";
import { Sources } from "./pages/Sources";
import { Calls } from "./pages/Calls";
import { Registration } from "./pages/Registration";
import { Profile } from "./pages/Profile";
import "./styles.css";

/** Hash routes (#/leads, #/leads/<id>): the static site needs no rewrite rules and no token is ever in the path. */
function useRoute(): string {
  const [route, setRoute] = useState(location.hash.slice(1) || "/");
  useEffect(() => {
    const update = () => setRoute(location.hash.slice(1) || "/");
    addEventListener("hashchange", update);
    // Effects run after the first paint: a hash changed before that (a quick click, a link opened as the app starts)
    // fired its hashchange with nobody listening.
    update();
    return () => removeEventListener("hashchange", update);
  }, []);
  return route;
}

function SignIn({ problem }: { problem?: string }) {
  const [busy, setBusy] = useState(false);
  return (
    <main class="signin">
      <h1>Sign in</h1>
      <p>Sign in with your e-mail and password, a one-time code sent to your e-mail, or your company account.</p>
      {problem ? <p role="alert">{problem}</p> : null}
      <button
        type="button"
        disabled={busy}
        onClick={() => {
          setBusy(true);
          void startSignIn().catch(() => setBusy(false));
        }}
      >
        Sign in
      </button>
      <p class="hint">Your session stays in this tab only; closing the tab signs you out.</p>
    </main>
  );
}

const navigation = [
  ["/", "Overview"],
  ["/leads", "Leads"],
  ["/conversations", "Conversations"],
  ["/calls", "Calls"],
  ["/automations", "Automations"],
  ["/billing", "Billing"],
  ["/numbers", "Numbers"],
  ["/registration", "10DLC"],
  ["/sources", "Sources"],
  ["/team", "Team"],
  ["/routing", "Routing"],
  ["/profile", "Profile"],
  ["/api-keys", "API keys"],
  ["/settings", "Settings"],
  ["/webhooks", "Webhooks"],
  ["/suppressions", "Suppressions"],
  ["/audit-log", "Audit log"],
] as const;

/** The page for a route: #/, #/leads, #/leads/<id>, #/conversations, #/conversations/<id>. */
function Page({ route }: { route: string }) {
  const [, section, id, view] = route.split("/").map((part) => decodeURIComponent(part));
  if (section === "leads") return id ? <LeadPage id={id} /> : <Leads />;
  if (section === "conversations") return id ? <Thread id={id} /> : <Conversations />;
  if (section === "automations") {
    if (id === "new") return <AutomationEditor />;
    if (id && view === "edit") return <AutomationEditor id={id} />;
    return id ? <AutomationRuns id={id} /> : <Automations />;
  }
  if (section === "billing") return <Billing />;
  if (section === "team") return <Team />;
  if (section === "routing") return <Routing />;
  if (section === "api-keys") return <ApiKeys />;
  if (section === "audit-log") return <AuditLog />;
  if (section === "settings") return <SettingsPage />;
  if (section === "webhooks") return <Webhooks />;
  if (section === "suppressions") return <Suppressions />;
  if (section === "numbers") return <Numbers />;
  if (section === "sources") return <Sources />;
  if (section === "calls") return <Calls />;
  if (section === "registration") return <Registration />;
  if (section === "profile") return <Profile />;
  return <Overview />;
}

function App() {
  const route = useRoute();
  const [signedIn, setSignedIn] = useState(isSignedIn());
  const [finishing, setFinishing] = useState(
    new URLSearchParams(location.search).has("code") || new URLSearchParams(location.search).has("error"),
  );
  const [problem, setProblem] = useState<string | undefined>();
  const [menuOpen, setMenuOpen] = useState(false);
  const [invitation, setInvitation] = useState(pendingInvitation());
  useEffect(() => {
    whenSessionEnds(() => setSignedIn(false));
    // An invitation link opened in a tab where the app already runs changes only the hash.
    const takeInvitation = () => {
      takeInvitationFromAddress();
      setInvitation(pendingInvitation());
    };
    addEventListener("hashchange", takeInvitation);
    takeInvitation(); // one opened before this effect ran (see useRoute)
    if (!finishing) return;
    void finishSignIn().then((done) => {
      if (done) setSignedIn(true);
      else setProblem("The sign-in did not complete. Please try again.");
      setFinishing(false);
    });
  }, []);
  if (finishing) return <p role="status">Signing in…</p>;
  if (invitation)
    return (
      <AcceptInvitation
        token={invitation}
        signedIn={signedIn}
        problem={problem}
        onDone={() => {
          setInvitation(null);
          setSignedIn(isSignedIn());
        }}
      />
    );
  if (!signedIn) return <SignIn problem={problem} />;
  return (
    <>
      {/* The hash is the route, so the skip link moves focus itself instead of changing the hash. */}
      <a
        class="skip"
        href="#content"
        onClick={(event) => {
          event.preventDefault();
          document.getElementById("content")?.focus();
        }}
      >
        Skip to content
      </a>
      <header class="top">
        <strong>Leads dashboard</strong>
        {/* On a phone the sections fold behind this button; on a laptop it is hidden and the nav always shows. */}
        <button
          type="button"
          class="secondary menu"
          aria-expanded={menuOpen}
          aria-controls="main-nav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
        <nav id="main-nav" aria-label="Main" class={menuOpen ? "open" : ""}>
          {navigation.map(([path, label]) => (
            <a
              href={`#${path}`}
              onClick={() => setMenuOpen(false)}
              aria-current={route === path || (path !== "/" && route.startsWith(path)) ? "page" : undefined}
            >
              {label}
            </a>
          ))}
        </nav>
        <button
          type="button"
          class="secondary signout"
          onClick={() => {
            void signOut().then(() => setSignedIn(false));
          }}
        >
          Sign out
        </button>
      </header>
      <main id="content" tabIndex={-1}>
        <Page route={route} />
      </main>
    </>
  );
}

takeInvitationFromAddress();
render(<App />, document.getElementById("root")!);
