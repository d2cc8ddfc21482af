import { org, ownPartition, type Key } from "#core/db/keys/shared";

/**
 * The partition of one number's call copies (`ORG#o#CALLPHONE#<e164>`): the calls of one number are listed from it,
 * and one number's rate of calls is bounded by the calls it can carry, so no organization's rate lands on it.
 */
const numberCalls = (organizationId: string, e164: string) => `${org(organizationId)}#CALLPHONE#${e164}`;

/**
 * Keys of the items core/calls owns (docs/data-model.md). Each call and each provider pointer is in a partition of
 * its own (issue 27); the organization's call log is the Call entity's write-sharded creation index.
 */
export const callsKeys = {
  /** Calls (outbound and inbound). */
  call: (organizationId: string, callId: string): Key => ownPartition(organizationId, `CALL#${callId}`),
  /**
   * A copy of a call under each of its two numbers (endpoint 14: calls from or to a
   * number), written in the same transaction as the call, newest first by call id.
   */
  callByPhone: (organizationId: string, e164: string, callId: string): Key => ({
    pk: numberCalls(organizationId, e164),
    sk: `CALLPHONE#${e164}#${callId}`,
  }),
  callByPhonePrefix: (organizationId: string, e164: string) => ({
    pk: numberCalls(organizationId, e164),
    skPrefix: `CALLPHONE#${e164}#`,
  }),
  /** Provider call id → our call (status callbacks); a conditional put claims it (inbound calls are created once). */
  providerCall: (organizationId: string, provider: string, providerCallId: string): Key =>
    ownPartition(organizationId, `PROVIDERCALL#${provider}#${providerCallId}`),
};
