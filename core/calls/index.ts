import { dueShards, readCall, toCall } from "#core/calls/store";
import { CallPlacement } from "#core/calls/placement";
import { normalizePathPhoneNumber, CallWebhooks } from "#core/calls/webhooks";
import { type Actor } from "#core/auth/actor";
import { CallSchema, PlaceCallSchema, type Call } from "#core/calls/model";
import "#core/calls/queue";
import { keys } from "#core/db/keys";
import { keyOrder, listPage, type ListResource, listQuerySchema } from "#core/db/list";
import { NotFoundError } from "#core/errors";
import type { Page, PagingQuery } from "#core/shared/paging";

export { CallSchema, PlaceCallSchema, type Call };

const listResource: ListResource<Call> = {
  name: "callEvents",
  fields: {
    direction: { get: (c) => c.direction, kind: "string", filter: true },
    status: { get: (c) => c.status, kind: "string", filter: true },
    billingStatus: { get: (c) => c.billingStatus, kind: "string", filter: true },
    missed: { get: (c) => c.missed, kind: "boolean", filter: true },
    leadId: { get: (c) => c.leadId, kind: "string", filter: true },
    conversationId: { get: (c) => c.conversationId, kind: "string", filter: true },
    userId: { get: (c) => c.userId, kind: "string", filter: true },
    fromPhoneNumber: { get: (c) => c.fromPhoneNumber, kind: "string", filter: true, search: true },
    toPhoneNumber: { get: (c) => c.toPhoneNumber, kind: "string", filter: true, search: true },
    duration: { get: (c) => c.duration, kind: "number", sort: true, range: true },
    createdAt: { get: (c) => c.createdAt, kind: "date", sort: true, range: true },
    answeredAt: { get: (c) => c.answeredAt, kind: "date", sort: true, range: true },
    endedAt: { get: (c) => c.endedAt, kind: "date", sort: true, range: true },
  },
  defaultOrder: [{ field: "createdAt", direction: "desc" }],
  idOf: (c) => c.id,
  fromItem: toCall,
  candidates: (organizationId, context) => {
    const { pk, skPrefix } = keys.callByPhonePrefix(organizationId, (context as { e164: string }).e164);
    return { KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)", ExpressionAttributeValues: { ":pk": pk, ":prefix": skPrefix } };
  },
  orders: {
    createdAt: keyOrder((organizationId, context) => keys.callByPhonePrefix(organizationId, (context as { e164: string }).e164)),
  },
};

/** Body of the list operation: the paging query with this list's field names as enums. */
export const ListCallEventsSchema = listQuerySchema(listResource);

/** Outbound and inbound calls: placing, provider progress, billing by the minute, missed calls. */
export const Calls = {
  /** A call of the organization, read consistently; undefined when absent. */
  async find(organizationId: string, callId: string): Promise<Call | undefined> {
    const stored = await readCall(organizationId, callId);
    return stored ? toCall(stored) : undefined;
  },
  /** The shards of the due-call index (operator diagnostics). */
  dueShards,

  async fromId(actor: Actor, callId: string): Promise<Call> {
    const call = await readCall(actor.organizationId, callId);
    if (!call) throw new NotFoundError("Call", callId);
    return toCall(call);
  },

  /** Endpoint 14: calls from or to a number, newest first; the path number in any form, URL-encoded `+` included. */
  async listByPhone(actor: Actor, rawPhone: string, query: PagingQuery): Promise<Page<Call>> {
    const e164 = normalizePathPhoneNumber(rawPhone);
    return listPage(listResource, actor.organizationId, query, { e164 });
  },
  ...CallPlacement,
  ...CallWebhooks,
};

export { CALL_SWEEP_GRACE_MINUTES, RING_TIMEOUT_SECONDS } from "#core/calls/lifecycle";
export { normalizePathPhoneNumber } from "#core/calls/webhooks";
