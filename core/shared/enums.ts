/**
 * Closed sets shared by several aggregates' records, so their schemas (and the
 * contract's enums) and the code producing them cannot drift apart.
 */

/** Why a sender (or caller id) number was chosen for an outbound message or call. */
export const senderSelectionReasons = [
  "ManualOverride",
  "StickyConversation",
  "AgentNumber",
  "AreaCodeMatch",
  "LeastRecentlyUsed",
] as const;
export type SenderSelectionReason = (typeof senderSelectionReasons)[number];

/** Which way a message or call went. */
export const directions = ["Outbound", "Inbound"] as const;
export type Direction = (typeof directions)[number];

/** Whether an event concerns a real lead (the only kind today; test traffic would be another value). */
export const trafficTypes = ["RealLead"] as const;

/** Which timeline an event record appears on (spec 2.5); null for events on no lead timeline (billing, automations, webhooks). */
export const timelineTypes = ["Lead", "Message", "Call", "Compliance", "Conversation", "PhoneNumber"] as const;
