import { dueWorkShardOf } from "#core/db/due";
import { defineEntity } from "#core/db/entity";
import { messagingKeys } from "#core/db/keys/messaging";
import { org, ordered } from "#core/db/keys/shared";

/**
 * A stored message: the message, its organization and id. `dueAt` is not stored: it is when the sweeper looks at
 * the message again, which only its `due` entry holds (with `dueKind`, why, beside it).
 */
export type StoredMessage = { organizationId: string; id: string; dueAt?: string } & Record<string, unknown>;

/**
 * The Message entity (docs/data-model.md): one item per message (outbound or inbound) in a partition of its own,
 * every change one conditional update naming the statuses it may start from (core/messaging/store.ts).
 */
export const MessageEntity = defineEntity({
  name: "Message",
  attributes: [],
  key: ({ organizationId, id }: { organizationId: string; id: string }) => messagingKeys.message(organizationId, id),
  identity: ({ organizationId, id }: StoredMessage) => ({ organizationId, id }),
  indexes: {
    /** One conversation's messages in acceptance order (ULID ids); keys only. Written once: a message never moves. */
    byConversation: {
      index: "messagesByConversation",
      pk: (message: StoredMessage) =>
        `${org(message.organizationId)}#CONVERSATION#${String(message.conversationId)}#MESSAGES`,
      sk: (message: StoredMessage) => `MESSAGE#${message.id ?? ""}`,
      composites: [],
    },
    /**
     * Messages waiting for a time (a far-future scheduled send, an overdue dispatch, a receipt timeout). Not tenant
     * data: the sweeper's operator index across organizations, sharded by message id; given by the writes that set
     * a wait (explicit: the record holds no due time), kept by the others, gone once the message ends.
     */
    due: {
      index: "dueWork",
      pk: (message: StoredMessage & { shard?: number }) => `DUEMESSAGES#${message.shard ?? dueWorkShardOf(message.id)}`,
      sk: (message: StoredMessage) => `${message.dueAt}#${message.organizationId}#${message.id}`,
      composites: [],
      explicit: true,
    },
  },
});

type ProviderMessage = { organizationId: string; provider: string; providerMessageId: string };

/** A provider's message id → our message (`messageId`): status callbacks find the message by it, inbound dedupes on it. */
export const ProviderMessageEntity = defineEntity({
  name: "ProviderMessage",
  attributes: [],
  key: ({ organizationId, provider, providerMessageId }: ProviderMessage) =>
    messagingKeys.providerMessage(organizationId, provider, providerMessageId),
  identity: ({ organizationId, provider, providerMessageId }: ProviderMessage) => ({
    organizationId,
    provider,
    providerMessageId,
  }),
  indexes: {},
});

/** A stored conversation: the conversation (core/messaging/conversations.ts) and its organization, which it does not store. */
export type StoredConversation = {
  organizationId: string;
  id: string;
  lastMessageAt?: string | null;
} & Record<string, unknown>;

const lastMessageOrder = (conversation: StoredConversation) =>
  ordered(conversation.lastMessageAt ?? "", conversation.id ?? "");

/**
 * The Conversation entity (docs/data-model.md): one item per contact number under its organization, found from the
 * number through its pointer (ConversationByPhone), listed by its last message, and, while unread, in the inbox.
 */
/** Shards of the organization's conversations by creation: one conversation a new contact, up to one a lead. */
export const conversationListShards = 8;

export const ConversationEntity = defineEntity({
  name: "Conversation",
  attributes: [],
  key: ({ organizationId, id }: { organizationId: string; id: string }) =>
    messagingKeys.conversation(organizationId, id),
  identity: ({ organizationId, id }: StoredConversation) => ({ organizationId, id }),
  indexes: {
    /**
     * The organization's conversations in creation order (ULID ids), newest first when read backwards: each
     * conversation is in a partition of its own (issue 27), so the listing is this write-sharded index, its shards
     * read in parallel and merged.
     */
    byCreation: {
      index: "conversationsByCreation",
      pk: (conversation: StoredConversation, shard: number) =>
        `${org(conversation.organizationId)}#CONVERSATIONS#${shard}`,
      sk: (conversation: StoredConversation) => `CONVERSATION#${conversation.id ?? ""}`,
      composites: [],
      shards: { count: conversationListShards, by: (conversation: StoredConversation) => conversation.id },
    },
    /** The organization's conversations by their last message (none yet first). */
    byLastMessage: {
      index: "sortedByField",
      pk: (conversation: StoredConversation) => `${org(conversation.organizationId)}#CONVERSATIONS#LASTMESSAGE`,
      sk: lastMessageOrder,
      composites: ["lastMessageAt"],
    },
    /**
     * The inbox: unread conversations by their last message. Explicit: a message's blind write cannot tell whether
     * the conversation is unread, so an inbound message enters it, reading the conversation leaves it, and every
     * message moves the entry (`reorder`) without changing whether it is there.
     */
    unread: {
      index: "conversationsByUnread",
      pk: (conversation: StoredConversation) => `${org(conversation.organizationId)}#CONVERSATIONS#UNREAD`,
      sk: lastMessageOrder,
      composites: [],
      explicit: true,
    },
  },
});

type ConversationByPhone = { organizationId: string; contactPhoneNumber: string };

/** A contact number → its conversation (`conversationId`), claimed by a conditional put: one conversation a number. */
export const ConversationByPhoneEntity = defineEntity({
  name: "ConversationByPhone",
  attributes: [],
  key: ({ organizationId, contactPhoneNumber }: ConversationByPhone) =>
    messagingKeys.conversationByPhone(organizationId, contactPhoneNumber),
  identity: ({ organizationId, contactPhoneNumber }: ConversationByPhone) => ({ organizationId, contactPhoneNumber }),
  indexes: {},
});

type NumberHealthBucket = { organizationId: string; phoneNumberId: string; bucket: string };

/**
 * A number's delivery outcomes in one 10-minute bucket, counters added as outcomes come (TTL); a number's buckets
 * are its own partition (issue 27), read as one key range of it (`collection`, by bucket).
 */
export const NumberHealthEntity = defineEntity({
  name: "NumberHealth",
  attributes: [],
  key: ({ organizationId, phoneNumberId, bucket }: NumberHealthBucket) =>
    messagingKeys.numberHealth(organizationId, phoneNumberId, bucket),
  identity: ({ organizationId, phoneNumberId, bucket }: NumberHealthBucket) => ({
    organizationId,
    phoneNumberId,
    bucket,
  }),
  collection: {
    name: "byBucket",
    pk: ({ organizationId, phoneNumberId }: NumberHealthBucket) =>
      messagingKeys.numberHealth(organizationId, phoneNumberId, "").pk,
    sk: ({ phoneNumberId, bucket }: NumberHealthBucket) =>
      messagingKeys.numberHealth("", phoneNumberId, bucket ?? "").sk,
  },
  indexes: {},
});

type UnreadLedgerEntry = { organizationId: string; conversationId: string };

/** The unread ledger's entry of a conversation with unread inbound messages (core/messaging/unread.ts). */
export const AnalyticsUnreadEntity = defineEntity({
  name: "AnalyticsUnread",
  attributes: [],
  key: ({ organizationId, conversationId }: UnreadLedgerEntry) =>
    messagingKeys.analyticsUnread(organizationId, conversationId),
  identity: ({ organizationId, conversationId }: UnreadLedgerEntry) => ({ organizationId, conversationId }),
  indexes: {},
});

/** An organization's messaging settings (one item, written whole on the version it read). */
export const MessagingSettingsEntity = defineEntity({
  name: "MessagingSettings",
  attributes: [],
  key: ({ organizationId }: { organizationId: string }) => messagingKeys.messagingSettings(organizationId),
  identity: ({ organizationId }: { organizationId: string }) => ({ organizationId }),
  indexes: {},
});
