import { transact } from "#core/db/transact";
import { table } from "#core/db/items";
import { warmReads } from "#core/db/warm";
import { queryAll } from "#core/db/query";
import { entities, keys } from "#core/db/keys";
import { permissions, type Permission } from "#core/auth/actor";
import { newId, nowIso } from "#core/shared/ids";
import { ApiKeys, type ApiKeyRecord } from "#core/organizations/api-keys";

export interface Organization {
  id: string;
  name: string;
  /** IANA zone used for schedules and as the last fallback for quiet hours. */
  timeZone: string;
  createdAt: string;
}

export { ApiKeys, type ApiKeyRecord } from "#core/organizations/api-keys";

/** Organizations (tenants) and their API keys. Operator-facing: no actor. */
/** An organization's profile never changes once created (docs/decisions.md "Warm reads"); one not created yet is not remembered. */
const profileReads = warmReads({ rememberAbsent: false });

export const Organizations = {
  /** Creates an organization with a first API key holding every scope. */
  async create(input: { name: string; timeZone?: string }): Promise<{ organization: Organization; apiKey: string }> {
    const organization: Organization = {
      id: newId(),
      name: input.name,
      timeZone: input.timeZone ?? "America/New_York",
      createdAt: nowIso(),
    };
    const { apiKey, item: keyItem } = await ApiKeys.issue(organization.id, { name: "Default key", scopes: [...permissions] });
    await transact([
      {
        Put: {
          Item: {
            ...keys.organization(organization.id),
            ...keys.organizationIndex(organization.createdAt, organization.id),
            entity: entities.organization,
            ...organization,
          },
          ConditionExpression: "attribute_not_exists(pk)",
        },
      },
      { Put: { Item: keyItem } },
    ]);
    return { organization, apiKey };
  },

  async fromId(organizationId: string): Promise<Organization | undefined> {
    const Item = await profileReads.get(keys.organization(organizationId));
    return Item ? toOrganization(Item) : undefined;
  },

  /** Every organization, oldest first (operator CLI). */
  async list(): Promise<Organization[]> {
    const items = await queryAll({
      index: "organizationsByCreation",
      KeyConditionExpression: "gsi1pk = :pk",
      ExpressionAttributeValues: { ":pk": keys.organizationIndex("", "").gsi1pk },
    });
    return items.map(toOrganization);
  },

  /** Issues another `sk_` key (operator CLI, tests); the plain key is returned once and stored only hashed. */
  async issueApiKey(organizationId: string, input: { name: string; scopes?: Permission[] }): Promise<{ apiKey: string; record: ApiKeyRecord }> {
    const { apiKey, record, item } = await ApiKeys.issue(organizationId, { name: input.name, scopes: input.scopes ?? [...permissions] });
    await table.put({ Item: item });
    return { apiKey, record };
  },

  /** Resolves an `sk_` key in one read; undefined when unknown, malformed, revoked or expired. */
  resolveApiKey: (apiKey: string) => ApiKeys.resolve(apiKey),
};

function toOrganization(item: Record<string, unknown>): Organization {
  return {
    id: item.id as string,
    name: item.name as string,
    timeZone: item.timeZone as string,
    createdAt: item.createdAt as string,
  };
}
