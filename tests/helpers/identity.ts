import { createHash, randomBytes, randomUUID } from "node:crypto";
import { inject } from "vitest";
import type { Role } from "#core/auth/actor";
import { DynamoStorage } from "@openauthjs/openauth/storage/dynamo";
import { identityStorageOptions } from "#local/identity";
import { registerPassword } from "#local/provision";
import * as Users from "#core/users/index";
import { applyStackEnv, baseUrl } from "#tests/helpers/stack";

export const identityUrl = () => inject("identityUrl");
export const appRedirect = () => `${baseUrl()}/app/`;

/** The identity provider's storage, as the stack's issuer reads it. */
export function identityStorage() {
  applyStackEnv();
  process.env.AWS_ACCESS_KEY_ID ??= "local";
  process.env.AWS_SECRET_ACCESS_KEY ??= "local";
  process.env.AWS_REGION ??= "us-east-1";
  return DynamoStorage({ ...identityStorageOptions, endpoint: process.env.DYNAMODB_ENDPOINT! });
}

/** A stored user of an organization who can sign in with a password. */
export async function newSignInUser(organizationId: string, role: Role = "owner") {
  const storage = identityStorage();
  const stored = await Users.add(organizationId, { email: `${randomUUID()}@example.com`, name: "Signed In", role });
  const password = `pw-${randomBytes(12).toString("base64url")}`;
  await registerPassword(storage, stored.email, password);
  return { userId: stored.id, organizationId, role, name: stored.name, email: stored.email, password };
}

/**
 * A browser-like client of the issuer (the stack's, or another at `issuerUrl`): keeps its cookies, follows nothing by
 * itself, calls from one address. An absolute path goes elsewhere (an OIDC upstream) with the same cookies.
 */
export function issuerSession(sourceIp = `10.${rnd()}.${rnd()}.${rnd()}`, issuerUrl = identityUrl()) {
  const cookies = new Map<string, string>();
  async function call(path: string, init: { method?: string; form?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { "x-forwarded-for": sourceIp };
    if (cookies.size) headers.cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    if (init.form) headers["content-type"] = "application/x-www-form-urlencoded";
    const response = await fetch(new URL(path, issuerUrl), {
      method: init.method ?? (init.form ? "POST" : "GET"),
      headers,
      body: init.form ? new URLSearchParams(init.form) : undefined,
      redirect: "manual",
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const [name, ...value] = pair!.split("=");
      cookies.set(name!.trim(), value.join("="));
    }
    return {
      status: response.status,
      location: response.headers.get("location"),
      text: await response.text(),
      headers: response.headers,
    };
  }
  return { call, sourceIp };
}

/** Starts an authorization (code + PKCE) for the dashboard client; returns the verifier and state to finish it. */
export async function authorize(session: ReturnType<typeof issuerSession>, clientId = "dashboard") {
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const state = randomUUID();
  const query = new URLSearchParams({
    client_id: clientId,
    redirect_uri: appRedirect(),
    response_type: "code",
    state,
    code_challenge: challenge,
    code_challenge_method: "S256",
  });
  const started = await session.call(`/authorize?${query}`);
  return { verifier, state, started };
}

export async function passwordSignIn(session: ReturnType<typeof issuerSession>, email: string, password: string) {
  await session.call("/password/authorize");
  return session.call("/password/authorize", { form: { email, password } });
}

export async function token(form: Record<string, string>, issuerUrl = identityUrl()) {
  const response = await fetch(new URL("/token", issuerUrl), { method: "POST", body: new URLSearchParams(form) });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/** The whole sign-in: authorize, password, code exchange. Returns the token answer. */
export async function signInWithPassword(email: string, password: string) {
  const session = issuerSession();
  const { verifier, state } = await authorize(session);
  const answer = await passwordSignIn(session, email, password);
  if (answer.status !== 302 || !answer.location)
    throw new Error(`sign-in: ${answer.status} ${answer.text.slice(0, 300)}`);
  const back = new URL(answer.location);
  if (back.searchParams.get("state") !== state) throw new Error("state mismatch");
  return token({
    grant_type: "authorization_code",
    code: back.searchParams.get("code")!,
    redirect_uri: appRedirect(),
    client_id: "dashboard",
    code_verifier: verifier,
  });
}

/** The local mailbox as its page's JSON shows it (sign-in codes and invitations), oldest first, each sign-in code picked out. */
export async function mailbox(): Promise<{ to: string; subject: string; text: string; code: string }[]> {
  const { messages } = (await (await fetch(new URL("/dev/mailbox.json", identityUrl()))).json()) as {
    messages: { to: string; subject: string; text: string }[];
  };
  return messages.map((message) => ({ ...message, code: /sign-in code is (\d{6})/.exec(message.text)?.[1] ?? "" }));
}

function rnd() {
  return Math.floor(Math.random() * 250);
}
