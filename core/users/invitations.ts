import * as v from "valibot";
import { actorId, type Actor } from "#core/auth/actor";
import * as Audit from "#core/audit/index";
import { config } from "#core/config";
import { InvitationEntity } from "#core/db/entities/users";
import { where } from "#core/db/expression";
import { keys } from "#core/db/keys";
import { listPage, listQuerySchema, prefixQuery, type ListResource } from "#core/db/list";
import { transact, Transaction, TransactionConditionFailed, type TransactItem } from "#core/db/transact";
import { ConflictError, ForbiddenError, NotFoundError } from "#core/errors";
import { sendMail } from "#core/mail/index";
import { newId, nowIso } from "#core/shared/ids";
import type { Page, PagingQuery } from "#core/shared/paging";
import { hashSecret, randomSecret, safeEqual } from "#core/shared/secrets";
import type { Invitation, InvitationRequest, User } from "#core/users/schemas";
import { EmailSchema } from "#core/users/schemas";
import { newUserWrites, userOfEmail } from "#core/users/store";
import { auditView, newUser } from "#core/users/team";

/** `inv_<organization>_<invitation id>_<secret>`: the link names its item; only the secret's hash is stored. */
const invitationTokenPattern = /^inv_([0-9A-HJKMNP-TV-Z]{26})_([0-9A-HJKMNP-TV-Z]{26})_([A-Za-z0-9_-]{32,})$/;
/** An invitation item stays listed (as Expired or Accepted) this long after its link stopped working, then TTL removes it. */
const keptAfterExpiryDays = 30;

const listResource: ListResource<Invitation> = {
  name: "invitations",
  fields: {
    email: { get: (i) => i.email, kind: "string", filter: true, search: true },
    status: { get: (i) => i.status, kind: "string", filter: true },
    createdAt: { get: (i) => i.createdAt, kind: "date", sort: true, range: true },
  },
  defaultOrder: [{ field: "createdAt", direction: "desc" }],
  idOf: (i) => i.id,
  fromItem: toInvitation,
  candidates: (organizationId) => prefixQuery(keys.invitationPrefix(organizationId)),
};

export const ListInvitationsSchema = listQuerySchema(listResource);

/**
 * Invites an e-mail address: a single-use link, valid `expiresInHours`, e-mailed through the mail port. The token
 * is stored only as its hash and is never answered: only the invitee's mailbox has it. The e-mail goes first: when
 * it cannot be sent (502), nothing is stored and inviting again is safe; a link whose store then failed only 404s.
 */
export async function invite(actor: Actor, input: InvitationRequest): Promise<Invitation> {
  if (input.role === "owner" && actor.role !== "owner") throw new ForbiddenError("Only an owner can invite an owner.");
  if (await userOfEmail(input.email)) throw new ConflictError(`${input.email} already belongs to a user.`);
  const id = newId();
  const token = `inv_${actor.organizationId}_${id}_${randomSecret()}`;
  const now = Date.now();
  const invitation: Invitation = {
    id,
    email: input.email,
    role: input.role,
    status: "Pending",
    invitedBy: actorId(actor),
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + input.expiresInHours * 3_600_000).toISOString(),
    acceptedAt: null,
  };
  await sendMail({
    to: invitation.email,
    subject: `${actor.displayName} invited you to join their team`,
    text: [
      `${actor.displayName} invited you to join their organization as ${invitation.role}.`,
      "",
      `Accept the invitation (the link works once, until ${invitation.expiresAt}):`,
      // In the fragment: a browser never sends it to a server, so it is in no request log or Referer.
      `${config.publicBaseUrl}/app/#/invitation/${token}`,
    ].join("\n"),
  });
  await transact([
    {
      Put: InvitationEntity.put({
        tokenHash: hashSecret(token),
        organizationId: actor.organizationId,
        ...invitation,
        ...(input.name ? { name: input.name } : {}),
        invitedByName: actor.displayName,
        linkExpiresAt: invitation.expiresAt,
        // The table's TTL attribute (epoch seconds): the item goes some time after the link stopped working.
        expiresAt: Math.floor(Date.parse(invitation.expiresAt) / 1000) + keptAfterExpiryDays * 86_400,
      }),
    },
    Audit.entry(actor, {
      action: "invitation.created",
      resourceType: "Invitation",
      resourceId: invitation.id,
      after: { email: invitation.email, role: invitation.role, expiresAt: invitation.expiresAt },
    }),
  ]);
  return invitation;
}

export function listInvitations(actor: Actor, query: PagingQuery): Promise<Page<Invitation>> {
  return listPage(listResource, actor.organizationId, query);
}

/**
 * Accepts an invitation for the signed-in identity: its e-mail must be the invited one. Creates the user (active,
 * with the invited role) and uses up the invitation in one transaction, so a link works exactly once.
 */
export async function acceptInvitation(
  invitationToken: string,
  identity: { email: string; name?: string },
): Promise<User> {
  const match = invitationTokenPattern.exec(invitationToken);
  if (!match) throw new NotFoundError("Invitation", "in this link");
  const organizationId = match[1]!;
  const invited = { organizationId, id: match[2]! };
  const item = await InvitationEntity.get(invited, { consistent: true });
  if (!item || !safeEqual(item.tokenHash as string, hashSecret(invitationToken)))
    throw new NotFoundError("Invitation", "in this link");
  const invitation = toInvitation(item);
  if (invitation.status !== "Pending")
    throw new ConflictError(`This invitation was ${invitation.status.toLowerCase()} and cannot be used again.`);
  const email = v.safeParse(EmailSchema, identity.email);
  if (!email.success || email.output !== invitation.email) {
    throw new ForbiddenError("This invitation is for another e-mail address: sign in with the address it was sent to.");
  }
  const user = newUser({
    email: invitation.email,
    name: identity.name ?? (item.name as string | undefined),
    role: invitation.role,
  });
  const acceptedAt = nowIso();
  const asUser: Actor = {
    organizationId,
    kind: "user",
    userId: user.id,
    role: user.role,
    permissions: new Set(),
    displayName: user.name,
    email: user.email,
  };
  try {
    await transact(
      new Transaction()
        .include("invitation", endPending(invited, "Accepted", acceptedAt, { acceptedAt, userId: user.id }))
        .include("user", ...newUserWrites(organizationId, user))
        .include(
          "audit",
          Audit.entry(asUser, {
            action: "invitation.accepted",
            resourceType: "User",
            resourceId: user.id,
            after: auditView(user),
          }),
        ),
    );
  } catch (error) {
    if (!(error instanceof TransactionConditionFailed)) throw error;
    if (error.failed("invitation"))
      throw new ConflictError("This invitation has expired, was revoked or was used already.");
    throw new ConflictError(`${user.email} already belongs to a user.`);
  }
  return user;
}

/**
 * Revokes a pending invitation of the actor's organization: its link stops working at once (accepting it is a 409).
 * Another organization's invitation is not found; an accepted, expired or revoked one is a 409.
 */
export async function revokeInvitation(actor: Actor, invitationId: string): Promise<void> {
  const identity = { organizationId: actor.organizationId, id: invitationId };
  const item = await InvitationEntity.get(identity, { consistent: true });
  if (!item) throw new NotFoundError("Invitation", invitationId);
  const before = toInvitation(item);
  if (before.role === "owner" && actor.role !== "owner")
    throw new ForbiddenError("Only an owner can revoke an owner's invitation.");
  const revokedAt = nowIso();
  try {
    await transact([
      endPending(identity, "Revoked", revokedAt, { revokedAt, revokedBy: actorId(actor) }),
      Audit.entry(actor, {
        action: "invitation.revoked",
        resourceType: "Invitation",
        resourceId: invitationId,
        before: { status: before.status },
        after: { status: "Revoked" },
      }),
    ]);
  } catch (error) {
    if (!(error instanceof TransactionConditionFailed)) throw error;
    const now = toInvitation((await InvitationEntity.get(identity, { consistent: true })) ?? item);
    throw new ConflictError(
      `This invitation is ${now.status.toLowerCase()}: only a pending invitation can be revoked.`,
    );
  }
}

/**
 * The write that ends a pending invitation (accepted or revoked), conditioned on it still being pending and its link
 * unexpired `at` that moment: two of them cannot both succeed, so a link works once.
 */
function endPending(
  identity: { organizationId: string; id: string },
  status: "Accepted" | "Revoked",
  at: string,
  fields: Record<string, string>,
): TransactItem {
  return {
    Update: InvitationEntity.update(
      identity,
      { status, ...fields },
      { condition: where.all(where.equals("status", "Pending"), where.after("linkExpiresAt", at)) },
    ),
  };
}

function toInvitation(item: Record<string, unknown>): Invitation {
  const linkExpiresAt = item.linkExpiresAt as string;
  const stored = item.status as Invitation["status"];
  return {
    id: item.id as string,
    email: item.email as string,
    role: item.role as Invitation["role"],
    status: stored === "Pending" && Date.parse(linkExpiresAt) <= Date.now() ? "Expired" : stored,
    invitedBy: item.invitedBy as string,
    createdAt: item.createdAt as string,
    expiresAt: linkExpiresAt,
    acceptedAt: (item.acceptedAt as string | undefined) ?? null,
  };
}
