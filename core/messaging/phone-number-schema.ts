import * as v from "valibot";
import { timestamp } from "#core/shared/ids";

// Apart from phone-numbers.ts so that what describes a number (the webhook catalogue, the contract) does not bundle
// the carriers and billing that buying one needs.

/** A number the organization owns. */
export const PhoneNumberSchema = v.object({
  id: v.string(),
  phoneNumber: v.string(),
  friendlyName: v.nullable(v.string()),
  capabilities: v.array(v.string()),
  areaCode: v.nullable(v.string()),
  lastUsedAt: v.nullable(timestamp),
  createdAt: timestamp,
  modifiedAt: v.nullable(timestamp),
  /**
   * What registers the number for A2P traffic and its status (null: nothing yet): a long code's 10DLC campaign
   * (`kind` TenDlcCampaign, `campaignId`), a toll-free number's own verification (`kind` TollFreeVerification,
   * `campaignId` null). Where sends need registration (docs/providers.md), only an Approved one of the number's kind
   * sends SMS.
   */
  registration: v.nullable(
    v.object({
      kind: v.picklist(["TenDlcCampaign", "TollFreeVerification"]),
      campaignId: v.nullable(v.string()),
      status: v.picklist(["Pending", "Approved", "Rejected"]),
    }),
  ),
  /** Set when the number was paused for a spike of carrier filtering (core/messaging/number-health.ts): it sends nothing until resumed. */
  paused: v.nullable(v.object({ at: timestamp, reason: v.string() })),
  /** Messages per second this number may hand the carrier, overriding its type's default (core/messaging/pacing.ts); null: the default. */
  messagesPerSecond: v.nullable(v.number()),
  /**
   * The agent whose own number this is (docs/routing.md "An agent's own number"): texts of conversations assigned to
   * them go out from it, and no one else's do; null: a number of the organization's shared pool.
   */
  assignedUserId: v.nullable(v.string()),
});
export type PhoneNumber = v.InferOutput<typeof PhoneNumberSchema>;
