/**
 * The dashboard's sign-in: OAuth 2.0 authorization code with PKCE against the stage's OpenAuth issuer
 * (docs/identity.md). Tokens live in sessionStorage (gone with the tab), never in a URL: the only thing the
 * issuer puts in the address bar is the one-time code, which is exchanged and removed at once.
 */
const keys = { access: "accessToken", refresh: "refreshToken", pending: "pendingSignIn" } as const;

interface Identity {
  issuer: string;
  clientId: string;
}

let identity: Promise<Identity> | undefined;

/** A deployed site has its issuer built in; the local stack tells it at /app/identity.json. */
function identityProvider(): Promise<Identity> {
  identity ??= (async () => {
    const built = import.meta.env.VITE_AUTH_URL as string | undefined;
    if (built)
      return {
        issuer: built.replace(/\/$/, ""),
        clientId: (import.meta.env.VITE_AUTH_CLIENT_ID as string | undefined) ?? "dashboard",
      };
    const response = await fetch(`${import.meta.env.BASE_URL}identity.json`, { cache: "no-store" });
    if (!response.ok) throw new Error("The identity provider is not reachable.");
    return (await response.json()) as Identity;
  })();
  return identity;
}

const redirectUri = () => `${location.origin}${import.meta.env.BASE_URL}`;

function base64url(bytes: ArrayBuffer | Uint8Array): string {
  return btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** Sends the browser to the issuer's sign-in page; it comes back to the app with `?code=…&state=…`. */
export async function startSignIn(): Promise<void> {
  const { issuer, clientId } = await identityProvider();
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  const state = base64url(crypto.getRandomValues(new Uint8Array(16)));
  sessionStorage.setItem(keys.pending, JSON.stringify({ state, verifier }));
  const url = new URL(`${issuer}/authorize`);
  for (const [name, value] of Object.entries({
    client_id: clientId,
    redirect_uri: redirectUri(),
    response_type: "code",
    state,
    code_challenge: challenge,
    code_challenge_method: "S256",
  })) {
    url.searchParams.set(name, value);
  }
  location.assign(url.toString());
}

/**
 * Finishes a sign-in the issuer redirected back from: checks the state (CSRF), exchanges the code with
 * the PKCE verifier, and removes the code from the address bar. False when there was none to finish.
 */
export async function finishSignIn(): Promise<boolean> {
  const query = new URLSearchParams(location.search);
  const code = query.get("code");
  if (!code && !query.get("error")) return false;
  history.replaceState(null, "", `${location.pathname}${location.hash}`);
  const pending = JSON.parse(sessionStorage.getItem(keys.pending) ?? "null") as {
    state: string;
    verifier: string;
  } | null;
  sessionStorage.removeItem(keys.pending);
  if (!code || !pending || query.get("state") !== pending.state) return false;
  const { issuer, clientId } = await identityProvider();
  return storeTokens(
    await fetch(`${issuer}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: redirectUri(),
        client_id: clientId,
        code_verifier: pending.verifier,
      }),
    }),
  );
}

async function storeTokens(response: Response): Promise<boolean> {
  if (!response.ok) return false;
  const tokens = (await response.json()) as { access_token?: string; refresh_token?: string };
  if (!tokens.access_token || !tokens.refresh_token) return false;
  sessionStorage.setItem(keys.access, tokens.access_token);
  sessionStorage.setItem(keys.refresh, tokens.refresh_token);
  return true;
}

export function isSignedIn(): boolean {
  return sessionStorage.getItem(keys.refresh) !== null;
}

/** Seconds since the epoch at which a JWT expires (read, not verified: the API verifies). */
function expiresAt(token: string): number {
  try {
    const payload = token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/");
    return Number((JSON.parse(atob(payload)) as { exp?: number }).exp ?? 0);
  } catch {
    return 0;
  }
}

let refreshing: Promise<string | null> | undefined;

/**
 * The access token for the next API call, refreshed silently (a new refresh token each time) when it
 * expires within a minute. Null when the session is over (refresh token revoked or expired).
 */
export function accessToken(): Promise<string | null> {
  const access = sessionStorage.getItem(keys.access);
  if (access && expiresAt(access) > Date.now() / 1000 + 60) return Promise.resolve(access);
  return refreshSession();
}

/**
 * Refreshes now, whatever the access token's expiry: after accepting an invitation, the next token carries the
 * organization (the issuer reads the membership at each refresh). Null when the session is over.
 */
export function refreshSession(): Promise<string | null> {
  refreshing ??= refresh().finally(() => (refreshing = undefined));
  return refreshing;
}

async function refresh(): Promise<string | null> {
  const token = sessionStorage.getItem(keys.refresh);
  if (!token) return null;
  const { issuer } = await identityProvider();
  const response = await fetch(`${issuer}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: token }),
  });
  if (await storeTokens(response)) return sessionStorage.getItem(keys.access);
  forget();
  return null;
}

/** Signs out: the issuer revokes the refresh token (the session cannot be refreshed again), then the tab forgets both. */
export async function signOut(): Promise<void> {
  const token = sessionStorage.getItem(keys.refresh);
  forget();
  if (!token) return;
  const { issuer } = await identityProvider();
  await fetch(`${issuer}/revoke`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token, token_type_hint: "refresh_token" }),
  }).catch(() => undefined);
}

function forget(): void {
  sessionStorage.removeItem(keys.access);
  sessionStorage.removeItem(keys.refresh);
}
