import { randomUUID } from "node:crypto";
import { importJWK, SignJWT } from "jose";
import { inject } from "vitest";
import { dashboardClientId } from "#core/auth/local-tokens";
import { mailbox } from "#tests/helpers/identity";
import type { TestOrganization } from "#tests/helpers/stack";

/** A signed-in person's token that belongs to no organization yet (what sign-in gives an invitee). */
export async function identityToken(email: string, name = "Invitee"): Promise<string> {
  const signing = inject("signing");
  return new SignJWT({ email, name })
    .setProtectedHeader({ alg: "RS256", kid: signing.privateJwk.kid, typ: "JWT" })
    .setSubject(`identity-${randomUUID()}`)
    .setIssuer(signing.issuer)
    .setAudience(dashboardClientId)
    .setIssuedAt()
    .setExpirationTime("10m")
    .sign(await importJWK(signing.privateJwk, "RS256"));
}

/** Waits for the e-mail to `to` in the stack's local mailbox, as the identity provider's `/dev/mailbox.json` shows it. */
export async function mailTo(to: string, timeoutMs = 20_000): Promise<{ to: string; subject: string; text: string }> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const mail = (await mailbox()).findLast((message) => message.to === to);
    if (mail) return mail;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`No e-mail to ${to} arrived`);
}

/** The invitation token in an invitation e-mail's link. */
export function invitationTokenIn(text: string): string {
  const token = /#\/invitation\/(inv_[A-Za-z0-9_-]+)/.exec(text)?.[1];
  if (!token) throw new Error(`No invitation link in: ${text}`);
  return token;
}

/** Polls a request until it answers `status` (a change that reaches other warm instances within seconds). */
export async function untilStatus(
  send: () => Promise<{ status: number; body: unknown }>,
  status: number,
  timeoutMs = 30_000,
) {
  const deadline = Date.now() + timeoutMs;
  let last: { status: number; body: unknown } | undefined;
  while (Date.now() < deadline) {
    last = await send();
    if (last.status === status) return last;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`Expected ${status}; last answer ${last?.status} ${JSON.stringify(last?.body)}`);
}

/** Invites `email` as `role` and accepts it with a fresh identity token: the new user and their org token signer. */
export async function inviteAndAccept(
  org: TestOrganization,
  email: string,
  role: "owner" | "admin" | "agent" = "agent",
) {
  const invited = await org.request("POST", "/invitations", { body: { email, role } });
  if (invited.status !== 201) throw new Error(`invite failed: ${invited.status} ${JSON.stringify(invited.body)}`);
  const token = invitationTokenIn((await mailTo(email)).text);
  const { request } = await import("#tests/helpers/stack");
  const accepted = await request("POST", "/invitations/accept", { token: await identityToken(email), body: { token } });
  if (accepted.status !== 201) throw new Error(`accept failed: ${accepted.status} ${JSON.stringify(accepted.body)}`);
  return { user: accepted.body, invitationToken: token };
}
