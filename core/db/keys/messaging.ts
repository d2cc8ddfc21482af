import { org, ownPartition, type Key } from "#core/db/keys/shared";

/** Keys of the items core/messaging owns (docs/data-model.md). */
export const messagingKeys = {
  /**
   * Phone numbers the organization owns at the provider, each in a partition of its own (issue 27: the pacing gate
   * writes the number's item on every send, 4.5 write units a lead the organization's partition could not carry);
   * listed from the PhoneNumber entity's creation index.
   */
  phoneNumber: (organizationId: string, phoneNumberId: string): Key =>
    ownPartition(organizationId, `PHONENUMBER#${phoneNumberId}`),
  /**
   * The pacing state of one lane of a number faster than a lane (core/messaging/pacing.ts: a 100-MPS short code is
   * paced as 10 lanes of 10), lanes 1 and up; lane 0 is the number's own item. Each in a partition of its own, like
   * the number: every send writes its lane a few times.
   */
  phoneNumberLane: (organizationId: string, phoneNumberId: string, lane: number): Key =>
    ownPartition(organizationId, `PHONENUMBER#${phoneNumberId}#LANE#${lane}`),
  /**
   * A number's delivery outcomes in one 10-minute bucket (`<yyyy-mm-ddThh:m0>`), counters added as receipts arrive;
   * TTL. In a partition of the number's own (issue 27: a write per receipt, which the organization's partition could
   * not carry at 167 leads/s; one number takes at most its own send rate), so its buckets are one key range.
   */
  numberHealth: (organizationId: string, phoneNumberId: string, bucket: string): Key => ({
    pk: `${org(organizationId)}#NUMBERHEALTH#${phoneNumberId}`,
    sk: `NUMBERHEALTH#${phoneNumberId}#${bucket}`,
  }),
  /**
   * Number → organization route (not tenant data): provider webhooks name only our
   * number (To of an inbound message, From of a status callback), so this is the one
   * lookup that cannot start from an organization. One item per E.164 number, claimed
   * with a conditional put, so a number belongs to at most one organization.
   */
  numberRoute: (e164: string): Key => ({ pk: `NUMBER#${e164}`, sk: "ROUTE" }),

  /**
   * Conversations: one per contact phone; the pointer item makes "conversation of this phone" race-free. Each in a
   * partition of its own (issue 27: a conversation is rewritten with every message, 5.6-8.8 write units a lead the
   * organization's partition could not carry), as its pointer; their listings (by creation, write-sharded; by last
   * message; the inbox) are declared with the Conversation entity.
   */
  conversation: (organizationId: string, conversationId: string): Key =>
    ownPartition(organizationId, `CONVERSATION#${conversationId}`),
  conversationByPhone: (organizationId: string, e164: string): Key =>
    ownPartition(organizationId, `CONVERSATIONPHONE#${e164}`),

  /** Canned replies: texts the organization keeps for quick answers in the inbox. */
  cannedReply: (organizationId: string, cannedReplyId: string): Key => ({
    pk: org(organizationId),
    sk: `CANNEDREPLY#${cannedReplyId}`,
  }),
  cannedReplyPrefix: (organizationId: string) => ({ pk: org(organizationId), skPrefix: "CANNEDREPLY#" }),

  /**
   * Messages (outbound and inbound), each in a partition of its own (issue 27: ~23 write units a lead, which the
   * organization's partition could not carry at 167 leads/s); its indexes are declared with the Message entity.
   */
  message: (organizationId: string, messageId: string): Key => ownPartition(organizationId, `MESSAGE#${messageId}`),
  /**
   * Provider message id → our message (status callbacks, inbound dedupe); a conditional put claims it. In a
   * partition of its own, as its message (written once per message).
   */
  providerMessage: (organizationId: string, provider: string, providerMessageId: string): Key =>
    ownPartition(organizationId, `PROVIDERMESSAGE#${provider}#${providerMessageId}`),
  /** Messaging settings of an organization (quiet hours, help and confirmation texts). */
  messagingSettings: (organizationId: string): Key => ({ pk: org(organizationId), sk: "SETTINGS#MESSAGING" }),
  analyticsUnread: (organizationId: string, conversationId: string): Key => ({
    pk: org(organizationId),
    sk: `ANALYTICS#UNREAD#${conversationId}`,
  }),
};
