import { dueWorkShardOf } from "#core/db/due";
import { defineEntity } from "#core/db/entity";
import { callsKeys } from "#core/db/keys/calls";
import { org } from "#core/db/keys/shared";

/**
 * A stored call: the call, its organization and id. `dueAt` is not stored: it is when the call's final status is
 * overdue, which only its `due` entry holds.
 */
export type StoredCall = { organizationId: string; id: string; dueAt?: string } & Record<string, unknown>;

/**
 * Shards of the organization's call log (issue 27): an automation that calls every lead places a call per lead, 167
 * a second at the goal, each written several times as its status moves; with eight, no shard carries more than an
 * eighth of the creations, and a page reads the eight in parallel.
 */
export const callLogShards = 8;

/**
 * The Call entity (docs/data-model.md): one item per call in a partition of its own (`ORG#o#CALL#<id>`), written
 * whole on the version it read (optimistic concurrency), with a copy under each of its numbers (CallByPhone) in the
 * same transaction, and listed by the organization from a write-sharded creation index (the call log).
 */
export const CallEntity = defineEntity({
  name: "Call",
  attributes: [],
  key: ({ organizationId, id }: { organizationId: string; id: string }) => callsKeys.call(organizationId, id),
  identity: ({ organizationId, id }: StoredCall) => ({ organizationId, id }),
  indexes: {
    /** The organization's calls in creation order (ULID ids), newest first when read backwards: the call log. */
    byCreation: {
      index: "callsByCreation",
      pk: (call: StoredCall, shard: number) => `${org(call.organizationId)}#CALLS#${shard}`,
      sk: (call: StoredCall) => `CALL#${call.id}`,
      composites: [],
      shards: { count: callLogShards, by: (call: StoredCall) => call.id },
    },
    /**
     * Calls holding money (outbound placed, inbound forwarded) by when their final status is overdue or their next
     * check-in falls (core/calls/sweeper.ts). Not tenant data: the sweeper's operator index across organizations,
     * sharded by call id; on the call item only, given by the writes that set it (explicit: the record holds no due
     * time), kept by the others, and gone from the write that makes the call final.
     */
    due: {
      index: "dueWork",
      pk: (call: StoredCall & { shard?: number }) => `DUECALLS#${call.shard ?? dueWorkShardOf(call.id)}`,
      sk: (call: StoredCall) => `${call.dueAt}#${call.organizationId}#${call.id}`,
      composites: [],
      explicit: true,
    },
  },
});

type CallByPhone = { organizationId: string; e164: string; callId: string };

/** A copy of a call under one of its two numbers (the calls from or to a number), newest first by call id. */
export const CallByPhoneEntity = defineEntity({
  name: "CallByPhone",
  attributes: [],
  key: ({ organizationId, e164, callId }: CallByPhone) => callsKeys.callByPhone(organizationId, e164, callId),
  identity: ({ organizationId, e164, callId }: CallByPhone) => ({ organizationId, e164, callId }),
  indexes: {},
});

type ProviderCall = { organizationId: string; provider: string; providerCallId: string };

/** A provider's call id → our call (`callId`), claimed once by a conditional put (an inbound call is created once). */
export const ProviderCallEntity = defineEntity({
  name: "ProviderCall",
  attributes: [],
  key: ({ organizationId, provider, providerCallId }: ProviderCall) =>
    callsKeys.providerCall(organizationId, provider, providerCallId),
  identity: ({ organizationId, provider, providerCallId }: ProviderCall) => ({
    organizationId,
    provider,
    providerCallId,
  }),
  indexes: {},
});
