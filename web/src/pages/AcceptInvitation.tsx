import { useEffect, useState } from "preact/hooks";
import { api, problemText } from "../api/client";
import { forgetInvitation } from "../api/invitation";
import { refreshSession, signOut, startSignIn } from "../api/session";

type Outcome =
  | { state: "accepting" }
  | { state: "failed"; status: number; detail: string }
  | { state: "joined-without-organization" };

/** What the person can do about a refused invitation, by the API's answer (docs/identity.md). */
function advice(status: number): string {
  if (status === 403) return "The invitation waits in this tab: sign in as the invited address and it is accepted.";
  if (status === 404) return "The link is incomplete or unknown: open it again from the e-mail, exactly as it is.";
  return "Ask the person who invited you to send a new invitation.";
}

/**
 * The page an invitation e-mail's link opens. Signed out, it sends the person through the normal sign-in (the
 * token waits in this tab); signed in, it accepts, refreshes the session so the token carries the organization,
 * and hands over to the Overview.
 */
export function AcceptInvitation({
  token,
  signedIn,
  problem,
  onDone,
}: {
  token: string;
  signedIn: boolean;
  problem?: string;
  /** The invitation was accepted or set aside: the app shows the dashboard. */
  onDone: () => void;
}) {
  const [outcome, setOutcome] = useState<Outcome>({ state: "accepting" });
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!signedIn) return;
    let current = true;
    void (async () => {
      const { data, error, response } = await api.POST("/invitations/accept", { body: { token } });
      if (!current) return;
      if (!data) return setOutcome({ state: "failed", status: response.status, detail: problemText(error) });
      forgetInvitation();
      // The access token was issued before the membership existed: the next one names the organization.
      if (!(await refreshSession())) return setOutcome({ state: "joined-without-organization" });
      location.hash = "#/";
      onDone();
    })();
    return () => void (current = false);
  }, [signedIn, token]);

  const signIn = () => {
    setBusy(true);
    void startSignIn().catch(() => setBusy(false));
  };

  if (!signedIn)
    return (
      <main class="signin invitation">
        <h1>Join your team</h1>
        <p>You were invited to an organization. Sign in with the e-mail address the invitation was sent to.</p>
        <p class="hint">No password yet? Choose the one-time e-mail code: it arrives at that address.</p>
        {problem ? <p role="alert">{problem}</p> : null}
        <button type="button" disabled={busy} onClick={signIn}>
          Sign in to accept
        </button>
      </main>
    );
  if (outcome.state === "accepting")
    return (
      <main class="signin invitation">
        <h1>Join your team</h1>
        <p role="status">Accepting the invitation…</p>
      </main>
    );
  if (outcome.state === "joined-without-organization")
    return (
      <main class="signin invitation">
        <h1>You joined the team</h1>
        <p role="status">Sign in again to open the organization's dashboard.</p>
        <button type="button" onClick={signIn}>
          Sign in
        </button>
      </main>
    );
  return (
    <main class="signin invitation">
      <h1>This invitation cannot be used</h1>
      <p role="alert">{outcome.detail}</p>
      <p>{advice(outcome.status)}</p>
      <div class="actions">
        {outcome.status === 403 ? (
          <button
            type="button"
            disabled={busy}
            onClick={() => {
              setBusy(true);
              // The invitation stays in this tab, so signing in as the invited address accepts it.
              void signOut().then(startSignIn, () => setBusy(false));
            }}
          >
            Sign in as another address
          </button>
        ) : null}
        <button
          type="button"
          class="secondary"
          onClick={() => {
            forgetInvitation();
            location.hash = "#/";
            onDone();
          }}
        >
          Leave this page
        </button>
      </div>
    </main>
  );
}
