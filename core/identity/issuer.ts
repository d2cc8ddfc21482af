import { OauthError } from "@openauthjs/openauth/error";
import { issuer } from "@openauthjs/openauth/issuer";
import { CodeProvider } from "@openauthjs/openauth/provider/code";
import { OidcProvider } from "@openauthjs/openauth/provider/oidc";
import { PasswordProvider } from "@openauthjs/openauth/provider/password";
import { Storage, type StorageAdapter } from "@openauthjs/openauth/storage/storage";
import { createSubjects } from "@openauthjs/openauth/subject";
import { CodeUI } from "@openauthjs/openauth/ui/code";
import { PasswordUI } from "@openauthjs/openauth/ui/password";
import { Select } from "@openauthjs/openauth/ui/select";
import * as v from "valibot";
import * as UserLookups from "#core/users/lookups";
import { guardSignIn, revokeRefreshToken } from "#core/identity/sign-in-guard";
import { passwordProblem } from "#core/identity/password-rules";
import type { Mail } from "#core/mail/index";

/**
 * The claims the API reads from an access token (core/http/authenticate.ts reads them under OpenAuth's
 * `properties`): a member of an organization, or a verified e-mail that belongs to none yet (an invited
 * person, who accepts the invitation and refreshes to get the organization).
 */
export const subjects = createSubjects({
  user: v.object({
    email: v.string(),
    org_id: v.optional(v.string()),
    role: v.optional(v.string()),
    name: v.optional(v.string()),
  }),
});

export interface IssuerOptions {
  storage: StorageAdapter;
  /** Delivers an e-mail (core/mail: SES when deployed, the local mailbox in `npm start`). */
  sendMail: (mail: Mail) => Promise<void>;
  /** OAuth clients allowed to ask for tokens, and the redirect URIs each may use (exact origins). */
  clients: Record<string, readonly string[]>;
  /** The stage's social/OIDC upstream (Google, or any OpenID provider), when one is configured. */
  upstream?: OidcUpstream;
  /** Deployed behind the stage's CloudFront router (a custom domain): the client address is in X-Forwarded-For. */
  behindProxy?: boolean;
  /** Access token lifetime; refreshes are silent, so short (default 15 minutes). */
  accessTtlSeconds?: number;
}

/**
 * An OpenID Connect provider people may sign in with (docs/identity.md "Sign-in with an OIDC upstream"): OpenAuth's
 * OidcProvider reads its discovery document and keys, sends the browser to its authorize endpoint (id_token,
 * form_post, a nonce) and takes the id_token back at `<issuer>/<name>/callback`.
 */
export interface OidcUpstream {
  /** Names its routes (`/<name>/authorize`, `/<name>/callback`): lower-case letters, e.g. `google`. */
  name: string;
  /** What the sign-in page offers: "Continue with <display>". */
  display: string;
  /** Its issuer URL (the discovery document is at `<issuer>/.well-known/openid-configuration`). */
  issuer: string;
  /** This stage's OAuth client there; its id_tokens must name it in `aud`. */
  clientId: string;
}

/** Google as the upstream: only its client id differs per stage. */
export function googleUpstream(clientId: string): OidcUpstream {
  return { name: "google", display: "Google", issuer: "https://accounts.google.com", clientId };
}

/**
 * The stage's upstream from the issuer function's environment (stacks/auth.ts): a generic one when
 * IDENTITY_OIDC_ISSUER and OIDC_CLIENT_ID are set, else Google when GOOGLE_CLIENT_ID is, else none.
 * A misnamed one stops the issuer at cold start rather than at someone's sign-in.
 */
export function upstreamFromEnvironment(env: Record<string, string | undefined>): OidcUpstream | undefined {
  const issuerUrl = env.IDENTITY_OIDC_ISSUER;
  if (issuerUrl && env.OIDC_CLIENT_ID) {
    const name = env.IDENTITY_OIDC_NAME || "oidc";
    if (!/^[a-z][a-z0-9-]{0,31}$/.test(name) || name === "password" || name === "code")
      throw new Error(`IDENTITY_OIDC_NAME "${name}" must be lower-case letters, digits and "-", not password or code.`);
    if (new URL(issuerUrl).protocol !== "https:") throw new Error("IDENTITY_OIDC_ISSUER must be an https URL.");
    return {
      name,
      display: env.IDENTITY_OIDC_DISPLAY || name,
      issuer: issuerUrl.replace(/\/+$/, ""),
      clientId: env.OIDC_CLIENT_ID,
    };
  }
  return env.GOOGLE_CLIENT_ID ? googleUpstream(env.GOOGLE_CLIENT_ID) : undefined;
}

/** Refresh tokens live 30 days; each use rotates it. */
const refreshTtlSeconds = 30 * 24 * 60 * 60;

/** Same words whether the e-mail is known or not: the sign-in form never tells which accounts exist. */
const noEnumeration = {
  error_invalid_password: "E-mail or password is incorrect.",
  error_invalid_email: "E-mail or password is incorrect.",
  register_prompt: "New here? Ask your organization's owner for an invitation, or sign in with a one-time e-mail code.",
  register: "",
};

/**
 * The identity provider (OpenAuth; docs/identity.md): e-mail + password, a one-time e-mail code, and an OIDC
 * upstream (Google, say) when the stage names one. Self-service registration is not offered (people join by invitation, and a
 * registration form answers "already registered", which would tell who has an account).
 */
export function createIssuer(options: IssuerOptions) {
  const sendCode = (email: string, code: string) => options.sendMail(signInCodeMail(email, code));
  const allowed = (clientId: string, redirectUri: string) =>
    Object.hasOwn(options.clients, clientId) && options.clients[clientId]!.includes(redirectUri);
  const upstream = options.upstream;
  const providers = {
    password: PasswordProvider({
      ...PasswordUI({ sendCode, copy: noEnumeration, validatePassword: passwordProblem }),
    }),
    code: CodeProvider({
      ...CodeUI({ sendCode: async (claims, code) => sendCode(claims.email!.toLowerCase(), code) }),
    }),
    ...(upstream
      ? { [upstream.name]: OidcProvider({ issuer: upstream.issuer, clientID: upstream.clientId, scopes: ["email"] }) }
      : {}),
  };
  const app = issuer({
    storage: options.storage,
    subjects,
    providers,
    // reuse 0: a refresh token works once (each refresh hands out the next), so a stolen one is dead after use.
    ttl: { access: options.accessTtlSeconds ?? 15 * 60, refresh: refreshTtlSeconds, reuse: 0 },
    select: Select({
      providers: {
        password: { display: "e-mail and password" },
        code: { display: "a one-time e-mail code" },
        ...(upstream ? { [upstream.name]: { display: upstream.display } } : {}),
      },
    }),
    allow: async ({ clientID, redirectURI }) => allowed(clientID, redirectURI),
    success: async (ctx, value) => {
      const email = verifiedEmail(value, upstream?.name);
      // access_denied (not a server error): the dashboard is sent back with it and shows the description.
      if (!email) throw new OauthError("access_denied", "The identity provider returned no verified e-mail.");
      const user = await UserLookups.forSignIn(email);
      if (!user) return ctx.subject("user", { email }, { subject: `email:${email}` });
      return ctx.subject("user", memberClaims(user), { subject: user.userId });
    },
  });
  return guardSignIn(app, options.storage, {
    revoke: (token) => revokeRefreshToken(options.storage, token),
    beforeRefresh: (token) => joinAfterInvitation(options.storage, token),
    allowed,
    behindProxy: options.behindProxy,
  });
}

function memberClaims(user: NonNullable<Awaited<ReturnType<typeof UserLookups.forSignIn>>>) {
  return { email: user.email, org_id: user.organizationId, role: user.role, name: user.name };
}

/**
 * OpenAuth refreshes with the claims stored at sign-in. A person who signed in before belonging to an organization
 * (`email:<address>`, an invitee) and has since accepted an invitation gets the member's claims at this refresh,
 * so the dashboard does not ask for a second sign-in. Refresh tokens are `<subject>:<secret>`.
 */
async function joinAfterInvitation(storage: StorageAdapter, refreshToken: string): Promise<void> {
  const secret = refreshToken.split(":").pop()!;
  const subject = refreshToken.slice(0, -secret.length - 1);
  if (!subject.startsWith("email:")) return;
  const key = ["oauth:refresh", subject, secret];
  const stored = (await Storage.get(storage, key)) as
    { subject: string; properties: { email: string }; ttl: { refresh: number } } | undefined;
  const user = stored && (await UserLookups.forSignIn(stored.properties.email));
  if (!user) return;
  await Storage.set(
    storage,
    key,
    { ...stored, subject: user.userId, properties: memberClaims(user) },
    stored.ttl.refresh,
  );
}

/** The e-mail carrying a one-time code (sign-in by code, or setting a forgotten password). */
export function signInCodeMail(email: string, code: string): Mail {
  return {
    to: email,
    subject: "Your sign-in code",
    text: `Your sign-in code is ${code}. It works once. If you did not ask for it, ignore this e-mail.`,
  };
}

function verifiedEmail(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an upstream provider's claims are untyped JSON
  value: ({ provider: string } & Record<string, any>) | undefined,
  upstreamName: string | undefined,
): string | undefined {
  if (!value) return undefined;
  if (value.provider === "password") return value.email;
  if (value.provider === "code")
    return typeof value.claims?.email === "string" ? value.claims.email.toLowerCase() : undefined;
  // The OIDC upstream: only an e-mail the upstream itself marks verified (an unverified one could be anybody's).
  if (value.provider === upstreamName && value.id?.email_verified === true && typeof value.id.email === "string")
    return value.id.email.toLowerCase();
  return undefined;
}
