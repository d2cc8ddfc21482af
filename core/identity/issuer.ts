import { issuer } from "@openauthjs/openauth/issuer";
import { CodeProvider } from "@openauthjs/openauth/provider/code";
import { GoogleOidcProvider } from "@openauthjs/openauth/provider/google";
import { PasswordProvider } from "@openauthjs/openauth/provider/password";
import { Storage, type StorageAdapter } from "@openauthjs/openauth/storage/storage";
import { createSubjects } from "@openauthjs/openauth/subject";
import { CodeUI } from "@openauthjs/openauth/ui/code";
import { PasswordUI } from "@openauthjs/openauth/ui/password";
import { Select } from "@openauthjs/openauth/ui/select";
import * as v from "valibot";
import { Users } from "#core/users/index";
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
  /** A Google OAuth client of this stage, when one is configured. */
  google?: { clientId: string };
  /** Deployed behind the stage's CloudFront router (a custom domain): the client address is in X-Forwarded-For. */
  behindProxy?: boolean;
  /** Access token lifetime; refreshes are silent, so short (default 15 minutes). */
  accessTtlSeconds?: number;
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
 * The identity provider (OpenAuth; docs/identity.md): e-mail + password, a one-time e-mail code, and Google
 * when the stage has a client. Self-service registration is not offered (people join by invitation, and a
 * registration form answers "already registered", which would tell who has an account).
 */
export function createIssuer(options: IssuerOptions) {
  const sendCode = (email: string, code: string) => options.sendMail(signInCodeMail(email, code));
  const allowed = (clientId: string, redirectUri: string) =>
    Object.hasOwn(options.clients, clientId) && options.clients[clientId]!.includes(redirectUri);
  const providers = {
    password: PasswordProvider({
      ...PasswordUI({ sendCode, copy: noEnumeration, validatePassword: passwordProblem }),
    }),
    code: CodeProvider({
      ...CodeUI({ sendCode: async (claims, code) => sendCode(claims.email!.toLowerCase(), code) }),
    }),
    ...(options.google
      ? { google: GoogleOidcProvider({ clientID: options.google.clientId, scopes: ["openid", "email"] }) }
      : {}),
  };
  const app = issuer({
    storage: options.storage,
    subjects,
    providers,
    // reuse 0: a refresh token works once (each refresh hands out the next), so a stolen one is dead after use.
    ttl: { access: options.accessTtlSeconds ?? 15 * 60, refresh: refreshTtlSeconds, reuse: 0 },
    select: Select({
      providers: { password: { display: "e-mail and password" }, code: { display: "a one-time e-mail code" } },
    }),
    allow: async ({ clientID, redirectURI }) => allowed(clientID, redirectURI),
    success: async (ctx, value) => {
      const email = verifiedEmail(value);
      if (!email) throw new Error("The identity provider returned no verified e-mail.");
      const user = await Users.forSignIn(email);
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

function memberClaims(user: NonNullable<Awaited<ReturnType<typeof Users.forSignIn>>>) {
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
  const user = stored && (await Users.forSignIn(stored.properties.email));
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

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an upstream provider's claims are untyped JSON
function verifiedEmail(value: ({ provider: string } & Record<string, any>) | undefined): string | undefined {
  if (!value) return undefined;
  if (value.provider === "password") return value.email;
  if (value.provider === "code")
    return typeof value.claims?.email === "string" ? value.claims.email.toLowerCase() : undefined;
  // Google: only an e-mail Google itself verified.
  if (value.provider === "google" && value.id?.email_verified === true && typeof value.id.email === "string")
    return value.id.email.toLowerCase();
  return undefined;
}
