import { table } from "#core/db/items";
import { keys } from "#core/db/keys";
import { queryAll } from "#core/db/query";
import { AutomationEntity, AutomationRunEntity } from "#core/db/entities/automations";
import { CallEntity } from "#core/db/entities/calls";
import { ConversationEntity, MessageEntity } from "#core/db/entities/messaging";
import { PhoneNumberEntity } from "#core/db/entities/phone-numbers";
import { SuppressionEntity } from "#core/db/entities/suppressions";
import type { TestOrganization } from "#tests/helpers/stack";

type Items = Record<string, unknown>[];

/**
 * How the stored items of an entity in partitions of their own (issue 27) are found for one organization: the
 * organization-level listing its aggregate keeps (every stored item has its entry there, so an item written twice
 * shows twice). Messages are listed per conversation.
 */
const listings: Record<string, (organizationId: string) => Promise<Items>> = {
  Automation: (organizationId) => queryAll(AutomationEntity.query("byCreation", { organizationId })),
  AutomationRun: (organizationId) => queryAll(AutomationRunEntity.query("byOrganization", { organizationId })),
  Call: (organizationId) => queryAll(CallEntity.query("byCreation", { organizationId })),
  Message: async (organizationId) => {
    const conversations = await queryAll(ConversationEntity.query("byCreation", { organizationId }));
    const messages = await Promise.all(
      conversations.map(({ id }) =>
        queryAll(MessageEntity.query("byConversation", { organizationId, conversationId: String(id) })),
      ),
    );
    return messages.flat();
  },
  PhoneNumber: (organizationId) => queryAll(PhoneNumberEntity.query("byCreation", { organizationId })),
  Suppression: (organizationId) => queryAll(SuppressionEntity.query("byNumber", { organizationId })),
};

/** The organization's stored items of these entities, each read from its organization-level listing (`listings`). */
export async function organizationItems(org: TestOrganization, entities: readonly string[]): Promise<Items> {
  const lists = await Promise.all(
    entities.map((entity) => {
      const list = listings[entity];
      if (!list) throw new Error(`No listing of ${entity} items: read them by key, or add its listing here.`);
      return list(org.organizationId);
    }),
  );
  return lists.flat();
}

/**
 * The organization's stored items of these entities in every partition of it: its own (`ORG#<id>`) and those of the
 * items issue 27 keyed apart (`ORG#<id>#<sort key>`: leads, events, claims, messages, runs…), with entities no listing
 * finds (claims, pointers, markers). One consistent scan of the whole table, as an operator (the key migration) reads
 * it: its cost grows with everything stored before, so only a test that must see every partition uses it.
 */
export async function scannedOrganizationItems(org: TestOrganization, entities: readonly string[]): Promise<Items> {
  const partition = keys.organization(org.organizationId).pk;
  const items: Items = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await table.scan({
      FilterExpression: "pk = :pk OR begins_with(pk, :prefix)",
      ExpressionAttributeValues: { ":pk": partition, ":prefix": `${partition}#` },
      ExclusiveStartKey,
      ConsistentRead: true,
    });
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items.filter((item) => entities.includes(String(item.entity)));
}
