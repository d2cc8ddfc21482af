import { Hono, type Context } from "hono";
import { cors } from "hono/cors";
import { ScryptHasher } from "@openauthjs/openauth/provider/password";
import { Storage, type StorageAdapter } from "@openauthjs/openauth/storage/storage";

/**
 * Limits on the sign-in forms, kept in the issuer's own storage so every instance sees the same counts:
 * - per client IP: `ipAttempts` sign-in and code requests per `ipWindowSeconds` (a password spray from one place);
 * - per account: after `freeFailures` wrong passwords in a row, each further attempt waits twice as long as the
 *   one before (30 s, 1 min, 2 min … up to 15 min); a success clears it;
 * - one-time codes: `codesPerAccount` e-mails per account per `codeWindowSeconds`.
 * Unknown e-mails are counted exactly like known ones, so a lockout tells nothing about who has an account.
 * The counters are read-then-written (not atomic): a burst can overshoot by the requests in flight, which
 * changes nothing about the order of magnitude an attacker gets.
 */
export const signInLimits = {
  ipAttempts: 30,
  ipWindowSeconds: 10 * 60,
  freeFailures: 5,
  firstBackoffSeconds: 30,
  maxBackoffSeconds: 15 * 60,
  codesPerAccount: 5,
  codeWindowSeconds: 15 * 60,
};

type Window = { count: number; startedAt: number };
type Failures = { failures: number; lockedUntil: number };

/** Mounts the OpenAuth issuer behind the sign-in limits, and adds token revocation (RFC 7009). */
export function guardSignIn(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- OpenAuth's issuer is a Hono app of its own, untyped environment
  issuerApp: Hono<any>,
  storage: StorageAdapter,
  options: {
    revoke: (token: string) => Promise<void>;
    /** Called with the refresh token of each refresh grant before OpenAuth reads it. */
    beforeRefresh?: (refreshToken: string) => Promise<void>;
    allowed: (clientId: string, redirectUri: string) => boolean;
    behindProxy?: boolean;
  },
) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
  const app = new Hono<any>();

  // RFC 6749 §4.1.2.1: an unknown client or redirect URI is answered here, never redirected to (OpenAuth would
  // send the error to the unchecked redirect_uri).
  app.get("/authorize", async (c, next) => {
    if (!options.allowed(c.req.query("client_id") ?? "", c.req.query("redirect_uri") ?? "")) {
      return c.text("Unknown client or redirect URI.", 400);
    }
    return next();
  });

  app.post("/revoke", cors({ origin: "*", allowMethods: ["POST"], credentials: false }), async (c) => {
    const token = (await c.req.formData()).get("token");
    if (typeof token === "string" && token !== "") await options.revoke(token);
    // RFC 7009 §2.2: 200 whether or not the token was valid.
    return c.body(null, 200);
  });

  app.post("/token", async (c, next) => {
    const form = await c.req.formData();
    const refreshToken = form.get("refresh_token");
    if (form.get("grant_type") === "refresh_token" && typeof refreshToken === "string" && refreshToken.includes(":"))
      await options.beforeRefresh?.(refreshToken);
    return next();
  });

  // People join by invitation (and sign in with an e-mail code first); a registration form would answer
  // "already registered" and tell who has an account.
  app.all("/password/register", (c) =>
    c.text("Registration is by invitation: sign in with a one-time e-mail code.", 404),
  );

  app.post("/:provider/authorize", async (c, next) => {
    const provider = c.req.param("provider");
    const form = await c.req.formData();
    const email = String(form.get("email") ?? "")
      .trim()
      .toLowerCase();
    const action = String(form.get("action") ?? "");
    const ip = clientIp(c.env, c.req.header("x-forwarded-for"), options.behindProxy ?? false);
    if (await overWindow(storage, ["signin:ip", ip], signInLimits.ipAttempts, signInLimits.ipWindowSeconds)) {
      return tooMany(c, signInLimits.ipWindowSeconds);
    }
    if (provider === "code" && (action === "request" || action === "resend") && email) {
      if (
        await overWindow(storage, ["signin:code", email], signInLimits.codesPerAccount, signInLimits.codeWindowSeconds)
      ) {
        return tooMany(c, signInLimits.codeWindowSeconds);
      }
    }
    if (provider !== "password" || !email) return next();

    const key = ["signin:account", email];
    const record = (await Storage.get(storage, key)) as Failures | undefined;
    const now = Date.now();
    if (record && record.lockedUntil > now) return tooMany(c, Math.ceil((record.lockedUntil - now) / 1000));
    // OpenAuth skips the (slow, on purpose) hash check for an unknown e-mail: check a dummy hash so both take as long.
    if (!(await Storage.get(storage, ["email", email, "password"])))
      await ScryptHasher().verify(String(form.get("password") ?? ""), await dummyHash());
    await next();
    // OpenAuth answers a good password with a redirect to the client, a wrong one with the form again.
    if (c.res.status === 302) {
      if (record) await Storage.remove(storage, key);
      return;
    }
    const failures = (record?.failures ?? 0) + 1;
    const over = failures - signInLimits.freeFailures + 1;
    const backoff =
      over > 0 ? Math.min(signInLimits.maxBackoffSeconds, signInLimits.firstBackoffSeconds * 2 ** (over - 1)) : 0;
    await Storage.set(storage, key, { failures, lockedUntil: now + backoff * 1000 } satisfies Failures, 24 * 60 * 60);
  });

  app.route("/", issuerApp);
  return app;
}

let dummy: ReturnType<ReturnType<typeof ScryptHasher>["hash"]> | undefined;
const dummyHash = () => (dummy ??= ScryptHasher().hash("not anyone's password"));

/** Removes a refresh token (`<subject>:<token>`, as OpenAuth issues them): the session cannot be refreshed again. */
export async function revokeRefreshToken(storage: StorageAdapter, refreshToken: string): Promise<void> {
  const parts = refreshToken.split(":");
  const token = parts.pop();
  const subject = parts.join(":");
  if (!token || !subject) return;
  await Storage.remove(storage, ["oauth:refresh", subject, token]);
}

/** Counts one request in a fixed window; true when the window was already full. */
async function overWindow(
  storage: StorageAdapter,
  key: string[],
  limit: number,
  windowSeconds: number,
): Promise<boolean> {
  const now = Date.now();
  const current = (await Storage.get(storage, key)) as Window | undefined;
  const window = current && now - current.startedAt < windowSeconds * 1000 ? current : { count: 0, startedAt: now };
  if (window.count >= limit) return true;
  await Storage.set(
    storage,
    key,
    { count: window.count + 1, startedAt: window.startedAt } satisfies Window,
    windowSeconds,
  );
  return false;
}

/**
 * The client's address: what the function URL (payload 2.0) saw, or, behind the stage's CloudFront router
 * (`behindProxy`), the entry CloudFront appended last to X-Forwarded-For (earlier entries are the client's own
 * claims). The local runner passes the payload 2.0 shape.
 */
export function clientIp(
  event: { requestContext?: { http?: { sourceIp?: string } } } | undefined,
  forwardedFor: string | undefined,
  behindProxy: boolean,
): string {
  const proxied = behindProxy ? forwardedFor?.split(",").at(-1)?.trim() : undefined;
  return proxied || event?.requestContext?.http?.sourceIp || "unknown";
}

function tooMany(c: Context, retryAfterSeconds: number): Response {
  c.header("retry-after", String(retryAfterSeconds));
  return c.html(
    `<!doctype html><meta charset="utf-8"><title>Too many attempts</title><main style="font-family:system-ui;max-width:28rem;margin:4rem auto">` +
      `<h1>Too many attempts</h1><p>Wait a few minutes, then sign in again.</p></main>`,
    429,
  );
}
