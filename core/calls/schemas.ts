import { ConsentBasisSchema } from "#core/consent/basis";
import * as v from "valibot";
import { timestamp, wholeNumber } from "#core/shared/ids";
import { CALL_STATUSES } from "#core/shared/status";
import { directions, senderSelectionReasons } from "#core/shared/enums";

// The request schema lives apart (it validates phones); re-exported so callers keep one module for both.
export { PlaceCallSchema } from "#core/calls/place-request";

const text = v.nullable(v.string());
const count = v.nullable(wholeNumber);

export const callDirections = directions;

/**
 * A call, as `GET /calls/{id}` answers it and as endpoint 14 lists it (spec 2.6
 * call event: every 2.6 field, plus the status and its timestamps).
 */
export const CallSchema = v.object({
  id: v.string(),
  /** The provider's call id (Twilio CallSid). */
  providerId: text,
  provider: text,
  leadId: text,
  /** The organization. */
  businessId: v.string(),
  /** The user who placed it (outbound calls by a user). */
  userId: text,
  /**
   * Whose call it is: the assignee of its conversation (its lead's, unless the conversation was assigned itself) when
   * the call was placed or came in, kept when the lead moves on (docs/routing.md); null: nobody's.
   */
  assignedUserId: text,
  conversationId: text,
  /** Our number the call went out from (outbound). */
  fromPhoneNumberId: text,
  /** Our number the call is billed to (the caller for outbound, the called number for inbound). */
  billingPhoneNumberId: text,
  fromPhoneNumber: v.string(),
  toPhoneNumber: v.string(),
  /** The number shown to the called party. */
  callerId: text,
  /** Inbound calls: the number the call was forwarded to (the organization's `inboundCalls.forwardTo` when it came in); null when nobody was rung. */
  forwardedTo: text,
  /** Bridged outbound calls: the business side rung first and connected to the lead; null for a direct call. */
  connectTo: text,
  /** Bridged outbound calls: when the business side answered (the lead is dialed from then). */
  connectAnsweredAt: text,
  /** Bridged outbound calls: what the business side heard before the lead was dialed. */
  whisper: text,
  /** Seconds the lead's phone rings before the call ends NoAnswer. */
  ringSeconds: count,
  direction: v.picklist(callDirections),
  status: v.picklist(CALL_STATUSES),
  statusReason: text,
  providerStatus: text,
  errorCode: text,
  billingStatus: text,
  recordingUrl: text,
  record: v.boolean(),
  /** An inbound call that ended without a person answering it (unforwarded, or the forwarded number did not answer). */
  missed: v.boolean(),
  selectionReason: v.nullable(v.picklist(senderSelectionReasons)),
  /** Display name of the user who placed it. */
  user: text,
  /** Name of the organization. */
  business: text,
  createdAt: timestamp,
  queuedAt: text,
  ringingAt: text,
  answeredAt: text,
  endedAt: text,
  modifiedAt: text,
  /** Talk time in seconds (answered to ended). */
  duration: count,
  /** Seconds billed after rounding (docs/decisions.md). */
  billableSeconds: count,
  billableAmount: v.nullable(v.number()),
  metadata: v.record(v.string(), v.unknown()),
  createdBy: v.string(),
  /** Outbound: what the call relies on (core/consent/basis.ts); null when none was needed. */
  consentBasis: v.nullish(ConsentBasisSchema),
  /** Outbound: the contact rules it passed when placed (docs/compliance.md), e.g. `Suppression`, `StateWindow:FL`, `FrequencyCap:FL`. */
  complianceChecks: v.nullish(v.array(v.string())),
});
