import type { Actor } from "#core/auth/actor";
import type { Call } from "#core/calls/model";
import { readCall, toCall } from "#core/calls/store";
import { CallEntity } from "#core/db/entities/calls";
import { keys } from "#core/db/keys";
import { keyOrder, listPage, prefixQuery, type ListResource, listQuerySchema } from "#core/db/list";
import { NotFoundError } from "#core/errors";
import * as Conversations from "#core/messaging/conversations";
import { mayRead, visibleQuery } from "#core/routing/visibility";
import type { Page, PagingQuery } from "#core/shared/paging";
import { phoneFromPath } from "#core/shared/phone-input";

/** Reading calls: one by id, and the calls from or to a number (endpoint 14). */

/** What a call list filters, sorts and searches by: the same for the call log and the calls of one number. */
const callFields: ListResource<Call>["fields"] = {
  direction: { get: (c) => c.direction, kind: "string", filter: true },
  status: { get: (c) => c.status, kind: "string", filter: true },
  billingStatus: { get: (c) => c.billingStatus, kind: "string", filter: true },
  missed: { get: (c) => c.missed, kind: "boolean", filter: true },
  leadId: { get: (c) => c.leadId, kind: "string", filter: true },
  conversationId: { get: (c) => c.conversationId, kind: "string", filter: true },
  userId: { get: (c) => c.userId, kind: "string", filter: true },
  assignedUserId: { get: (c) => c.assignedUserId, kind: "string", filter: true },
  fromPhoneNumber: { get: (c) => c.fromPhoneNumber, kind: "string", filter: true, search: true },
  toPhoneNumber: { get: (c) => c.toPhoneNumber, kind: "string", filter: true, search: true },
  duration: { get: (c) => c.duration, kind: "number", sort: true, range: true },
  createdAt: { get: (c) => c.createdAt, kind: "date", sort: true, range: true },
  answeredAt: { get: (c) => c.answeredAt, kind: "date", sort: true, range: true },
  endedAt: { get: (c) => c.endedAt, kind: "date", sort: true, range: true },
};

const byPhonePrefix = (organizationId: string, context: unknown) =>
  keys.callByPhonePrefix(organizationId, (context as { e164: string }).e164);

const listResource: ListResource<Call> = {
  name: "callEvents",
  fields: callFields,
  defaultOrder: [{ field: "createdAt", direction: "desc" }],
  idOf: (c) => c.id,
  fromItem: toCall,
  candidates: (organizationId, context) => prefixQuery(byPhonePrefix(organizationId, context)),
  orders: { createdAt: keyOrder(byPhonePrefix) },
};

/**
 * The organization's call log: every call, newest first (call ids are time-ordered), from the calls' write-sharded
 * creation index (each call is in a partition of its own, issue 27), the shards read in parallel and merged.
 */
const callLog: ListResource<Call> = {
  ...listResource,
  name: "calls",
  candidates: (organizationId) => CallEntity.query("byCreation", { organizationId }),
  orders: {
    createdAt: (organizationId, _context, forward) => CallEntity.plan("byCreation", { organizationId }, { forward }),
  },
};

/** Body of the list operation: the paging query with this list's field names as enums. */
export const ListCallEventsSchema = listQuerySchema(listResource);
/** Body of `POST /calls/all/my`. */
export const ListCallsSchema = listQuerySchema(callLog);

/** A call of the organization, read consistently; undefined when absent. */
export async function find(organizationId: string, callId: string): Promise<Call | undefined> {
  const stored = await readCall(organizationId, callId);
  return stored ? toCall(stored) : undefined;
}

/** A call the caller may read (an agent held to their own leads: theirs, or of a conversation theirs now); else 404. */
export async function fromId(actor: Actor, callId: string): Promise<Call> {
  const stored = await readCall(actor.organizationId, callId);
  const call = stored ? toCall(stored) : undefined;
  const conversationNow = async () =>
    call?.conversationId ? Conversations.find(actor.organizationId, call.conversationId) : undefined;
  if (!call || !(await mayRead(actor, call, conversationNow))) throw new NotFoundError("Call", callId);
  return call;
}

/**
 * Endpoint 14: calls from or to a number, newest first; the path number in any form, URL-encoded `+` included.
 * `assignedUserId` filters by owner (`mine`, `unassigned`, a user id) and holds an agent to their own, as the log does.
 */
export async function listByPhone(actor: Actor, rawPhone: string, query: PagingQuery): Promise<Page<Call>> {
  const e164 = normalizePathPhoneNumber(rawPhone);
  return listPage(listResource, actor.organizationId, await visibleQuery(actor, query), { e164 });
}

/**
 * `POST /calls/all/my`: the organization's calls, newest first; `missed: true` narrows to the calls nobody answered,
 * `assignedUserId` to an owner's (`mine`, `unassigned`, a user id); an agent held to their own leads lists only theirs.
 */
export async function list(actor: Actor, query: PagingQuery): Promise<Page<Call>> {
  return listPage(callLog, actor.organizationId, await visibleQuery(actor, query));
}

/** The `{phoneNumber}` of endpoint 14 in E.164 (any form, URL-encoded `+` included); malformed → 400 at /path/phoneNumber. */
export function normalizePathPhoneNumber(raw: string): string {
  return phoneFromPath(raw, "phoneNumber");
}
