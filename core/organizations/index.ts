import { transact } from "#core/db/transact";
import { table } from "#core/db/items";
import { queryAll } from "#core/db/query";
import { entities, keys } from "#core/db/keys";
import { permissions, type Permission } from "#core/auth/actor";
import { newId, nowIso } from "#core/shared/ids";
import { ApiKeys, type ApiKeyRecord } from "#core/organizations/api-keys";
import { organizationProfile, toOrganization, type Organization } from "#core/organizations/profile";

export type { Organization } from "#core/organizations/profile";

export { ApiKeys, type ApiKeyRecord } from "#core/organizations/api-keys";

/** Organizations (tenants) and their API keys. Operator-facing: no actor. */
export const Organizations = {
  /** Creates an organization with a first API key holding every scope. */
  async create(input: { name: string; timeZone?: string }): Promise<{ organization: Organization; apiKey: string }> {
    const organization: Organization = {
      id: newId(),
      name: input.name,
      timeZone: input.timeZone ?? "America/New_York",
      createdAt: nowIso(),
    };
    const { apiKey, item: keyItem } = await ApiKeys.issue(organization.id, {
      name: "Default key",
      scopes: [...permissions],
    });
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

  fromId: organizationProfile,

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
  async issueApiKey(
    organizationId: string,
    input: { name: string; scopes?: Permission[] },
  ): Promise<{ apiKey: string; record: ApiKeyRecord }> {
    const { apiKey, record, item } = await ApiKeys.issue(organizationId, {
      name: input.name,
      scopes: input.scopes ?? [...permissions],
    });
    await table.put({ Item: item });
    return { apiKey, record };
  },

  /** Resolves an `sk_` key in one read; undefined when unknown, malformed, revoked or expired. */
  resolveApiKey: (apiKey: string) => ApiKeys.resolve(apiKey),
};
