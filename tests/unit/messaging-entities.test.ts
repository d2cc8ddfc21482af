import { describe, expect, it } from "vitest";
import { ConversationEntity, MessageEntity } from "#core/db/entities/messaging";
import { dueWorkShardOf } from "#core/db/due";
import { computed, where } from "#core/db/expression";
import { newMessage } from "#core/messaging/messages";
import {
  currentAttempt,
  messageFieldsUpdate,
  messageUpdate,
  newMessagePut,
  nullWhenAbsent,
  storedFields,
  storedNames,
  toMessage,
} from "#core/messaging/store";

/** An expression with its placeholders filled in, to read what it does. */
function spelled(
  expression: string | undefined,
  write: { ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> },
): string {
  return String(expression)
    .replace(/#n\d+/g, (name) => write.ExpressionAttributeNames![name]!)
    .replace(/:v\d+/g, (value) => JSON.stringify(write.ExpressionAttributeValues![value]));
}

const conversation = { organizationId: "o1", id: "c1" };

describe("a conversation's inbox entry follows its messages without a read", () => {
  it("an inbound message puts it in the inbox and moves it in the last-message order", () => {
    const update = ConversationEntity.update(
      conversation,
      { lastMessageAt: "2026-01-01T00:00:00.000Z", unread: true, unreadCount: computed.increment() },
      { enter: { unread: {} } },
    );
    expect(spelled(update.UpdateExpression, update)).toBe(
      'SET lastMessageAt = "2026-01-01T00:00:00.000Z", unread = true, unreadCount = if_not_exists(unreadCount, 0) + 1, ' +
        'gsi4pk = "ORG#o1#CONVERSATIONS#LASTMESSAGE", gsi4sk = "2026-01-01T00:00:00.000Z\\u0000c1", ' +
        'gsi7pk = "ORG#o1#CONVERSATIONS#UNREAD", gsi7sk = "2026-01-01T00:00:00.000Z\\u0000c1"',
    );
  });

  it("another message moves its inbox entry's sort key alone: in or out of the inbox, it stays so", () => {
    const update = ConversationEntity.update(
      conversation,
      { lastMessageAt: "2026-01-02T00:00:00.000Z" },
      { reorder: { unread: {} } },
    );
    expect(spelled(update.UpdateExpression, update)).toBe(
      'SET lastMessageAt = "2026-01-02T00:00:00.000Z", ' +
        'gsi4pk = "ORG#o1#CONVERSATIONS#LASTMESSAGE", gsi4sk = "2026-01-02T00:00:00.000Z\\u0000c1", ' +
        'gsi7sk = "2026-01-02T00:00:00.000Z\\u0000c1"',
    );
  });

  it("reading it takes it out of the inbox", () => {
    const update = ConversationEntity.update(conversation, { unread: false }, { leave: ["unread"] });
    expect(spelled(update.UpdateExpression, update)).toBe("SET unread = false REMOVE gsi7pk, gsi7sk");
  });
});

describe("a message change names the statuses it starts from and keeps its due entry in step", () => {
  it("a wait puts the message in its shard of the due index, with why; an ending takes it out", () => {
    const waiting = messageUpdate("o1", "m1", {
      from: ["Queued"],
      set: { sweepAttempts: 0 },
      due: { at: "2026-01-01T00:05:00.000Z", kind: "Dispatch" },
      condition: where.equals("retryCount", 2),
    });
    expect(spelled(waiting.UpdateExpression, waiting)).toMatch(
      new RegExp(
        `^SET sweepAttempts = 0, mt = "[^"]+", dueKind = "Dispatch", gsi3pk = "DUEMESSAGES#${dueWorkShardOf("m1")}", ` +
          `gsi3sk = "2026-01-01T00:05:00.000Z#o1#m1" REMOVE modifiedAt$`,
      ),
    );
    expect(spelled(waiting.ConditionExpression, waiting)).toBe(
      '(attribute_exists(pk) AND status IN ("Queued") AND retryCount = 2)',
    );
    const ended = messageUpdate("o1", "m1", { from: ["Sending", "Sent"], set: { status: "Delivered" }, due: null });
    expect(spelled(ended.UpdateExpression, ended)).toMatch(/ REMOVE modifiedAt, dueKind, gsi3pk, gsi3sk$/);
  });

  it("a sweep's claim holds only while the due entry is the one it read", () => {
    const condition = MessageEntity.indexedAt("due", "2026-01-01T00:05:00.000Z#o1#m1");
    const update = MessageEntity.update({ organizationId: "o1", id: "m1" }, { status: "Queued" }, { condition });
    expect(spelled(update.ConditionExpression, update)).toBe('gsi3sk = "2026-01-01T00:05:00.000Z#o1#m1"');
  });

  it("a callback's attempt condition refuses an attempt refused for throttling", () => {
    const condition = where.all(
      where.any(where.absent("providerMessageId"), where.equals("providerMessageId", "SM1")),
      where.not(where.contains("refusedAttempts", "SM1")),
    );
    const update = MessageEntity.update({ organizationId: "o1", id: "m1" }, { status: "Sent" }, { condition });
    expect(spelled(update.ConditionExpression, update)).toBe(
      '((attribute_not_exists(providerMessageId) OR providerMessageId = "SM1") AND NOT contains(refusedAttempts, "SM1"))',
    );
  });

  it("a callback applies to any attempt but a refused one until the carrier's id is stored (absent, or null before issue 27)", () => {
    const update = MessageEntity.update(
      { organizationId: "o1", id: "m1" },
      { status: "Sent" },
      { condition: currentAttempt("SM1").condition },
    );
    expect(spelled(update.ConditionExpression, update)).toBe(
      '(((attribute_not_exists(providerMessageId) OR attribute_type(providerMessageId, "NULL")) OR providerMessageId = "SM1") ' +
        'AND NOT contains(refusedAttempts, "SM1"))',
    );
  });
});

/** A new outbound message as `newMessage` starts it (no basis needed). */
const sampleMessage = newMessage({
  conversationId: "c1",
  direction: "Outbound",
  status: "Pending",
  body: "hello",
  media: [],
  toPhoneNumber: "+12125550100",
  createdBy: "u1",
  consentBasis: null,
});

describe("a message item stores no nulls (issue 27) and reads as it did with them", () => {
  const message = sampleMessage;

  it("the fields a new message starts null are the ones left out while null", () => {
    const startNull = Object.entries(message)
      .filter(([field, value]) => value === null && field !== "consentBasis")
      .map(([field]) => field);
    expect(new Set(startNull)).toEqual(nullWhenAbsent);
    expect(Object.values(storedFields(message)).filter((value) => value === null)).toHaveLength(1);
    expect(storedFields(message)).not.toHaveProperty("wasManuallyOverridden");
    expect(storedFields(message)).toHaveProperty("media", []);
    expect(storedFields(message)).toHaveProperty("retryCount", 0);
  });

  it("an item without its nulls and one stored with them read the same", () => {
    expect(toMessage(storedFields(message))).toEqual(message);
    expect(toMessage({ ...message })).toEqual(message);
    const asked = {
      ...message,
      wasManuallyOverridden: true,
      quietHoursOverridden: true,
      media: [{ url: "https://x.test/a.png", contentType: "image/png" }],
    };
    expect(toMessage(storedFields(asked))).toEqual(asked);
    expect(toMessage(storedFields(message))).not.toHaveProperty("complianceChecks");
  });

  it("a new message's put holds its keys and due entry, not its organization (its partition key names it)", () => {
    const put = newMessagePut("o1", message, { at: "2026-01-01T00:05:00.000Z", kind: "Dispatch" });
    expect(put.Item).not.toHaveProperty("organizationId");
    expect(put.Item).toMatchObject({
      ...MessageEntity.key({ organizationId: "o1", id: message.id }),
      gsi1pk: "ORG#o1#CONVERSATION#c1#MESSAGES",
      gsi1sk: `MESSAGE#${message.id}`,
      gsi3pk: `DUEMESSAGES#${dueWorkShardOf(message.id)}`,
      gsi3sk: `2026-01-01T00:05:00.000Z#o1#${message.id}`,
      dueKind: "Dispatch",
      entity: "Message",
    });
    expect(spelled(put.ConditionExpression, put)).toBe("attribute_not_exists(pk)");
    expect(toMessage(put.Item)).toEqual(message);
  });

  it("a change that empties such a field removes it; other fields are set as given", () => {
    const update = messageUpdate("o1", "m1", {
      from: ["Queued"],
      set: { status: "Queued", nextRetryAt: null, errorCode: "30001", consentBasis: null },
    });
    expect(spelled(update.UpdateExpression, update)).toMatch(
      /^SET status = "Queued", ec = "30001", cn = null, mt = "[^"]+" REMOVE nextRetryAt, errorCode, consentBasis, modifiedAt$/,
    );
  });
});

describe("a message item stores its longer fields under short names (issue 27, eighth pass)", () => {
  const message = sampleMessage;

  it("a new item holds the stored names, and the fields conditions, projections and indexes name keep theirs", () => {
    const stored = storedFields({ ...message, sentAt: "2026-01-01T00:00:01.000Z", providerMessageId: "SM1" });
    expect(stored).toMatchObject({ tn: "+12125550100", cb: "u1", sa: "2026-01-01T00:00:01.000Z", cn: null });
    for (const field of Object.keys(storedNames)) expect(stored).not.toHaveProperty(field);
    expect(stored).toMatchObject({ id: message.id, conversationId: "c1", status: "Pending", retryCount: 0 });
    expect(stored).toMatchObject({ providerMessageId: "SM1", direction: "Outbound", body: "hello", media: [] });
  });

  it("the stored names are distinct and none is a message field, a key or an internal attribute", () => {
    const names = Object.values(storedNames);
    expect(new Set(names).size).toBe(names.length);
    const taken = new Set([...Object.keys(message), "pk", "sk", "entity", "dueKind", "heldSlot", "waitingBehind"]);
    for (const name of names) expect(taken.has(name)).toBe(false);
  });

  it("an item stored before (long names) reads the same, and a stored name written since wins over a stale long one", () => {
    expect(toMessage({ ...message })).toEqual(message);
    const mixed = {
      ...message,
      billingStatus: "Reserved",
      bs: "Charged",
      deliveredAt: null,
      da: "2026-01-01T00:00:02.000Z",
    };
    expect(toMessage(mixed)).toMatchObject({ billingStatus: "Charged", deliveredAt: "2026-01-01T00:00:02.000Z" });
    expect(toMessage(mixed)).not.toHaveProperty("bs");
  });

  it("a change writes the stored name and removes the long one an item stored before may hold", () => {
    const settled = messageFieldsUpdate("o1", "m1", { billingStatus: "Charged", billableAmount: 0.01 });
    expect(spelled(settled.UpdateExpression, settled)).toBe(
      'SET bs = "Charged", ba = 0.01 REMOVE billingStatus, billableAmount',
    );
    const emptied = messageUpdate("o1", "m1", { from: ["Sending"], set: { statusReason: null } });
    expect(spelled(emptied.UpdateExpression, emptied)).toMatch(/ REMOVE statusReason, sr, modifiedAt$/);
  });
});
