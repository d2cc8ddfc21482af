import { org, type Key } from "#core/db/keys/shared";

/** Keys of the items core/calls owns (docs/data-model.md). */
export const callsKeys = {
  /** Calls (outbound and inbound). */
  call: (organizationId: string, callId: string): Key => ({ pk: org(organizationId), sk: `CALL#${callId}` }),
  /** Every call of the organization, newest first by call id (`POST /calls/all/my`, the call log). */
  callPrefix: (organizationId: string) => ({ pk: org(organizationId), skPrefix: "CALL#" }),
  /**
   * A copy of a call under each of its two numbers (endpoint 14: calls from or to a
   * number), written in the same transaction as the call, newest first by call id.
   */
  callByPhone: (organizationId: string, e164: string, callId: string): Key => ({
    pk: org(organizationId),
    sk: `CALLPHONE#${e164}#${callId}`,
  }),
  callByPhonePrefix: (organizationId: string, e164: string) => ({
    pk: org(organizationId),
    skPrefix: `CALLPHONE#${e164}#`,
  }),
  /** Provider call id → our call (status callbacks); a conditional put claims it (inbound calls are created once). */
  providerCall: (organizationId: string, provider: string, providerCallId: string): Key => ({
    pk: org(organizationId),
    sk: `PROVIDERCALL#${provider}#${providerCallId}`,
  }),
};
