import { transact } from "#core/db/transact";
import { table } from "#core/db/items";
import { warmReads } from "#core/db/warm";
import { queryAll } from "#core/db/query";
import { entities, keys } from "#core/db/keys";
import { permissions, type Permission } from "#core/auth/actor";
import { newId, nowIso } from "#core/shared/ids";
import { hashSecret, randomSecret } from "#core/shared/secrets";

export interface Organization {
  id: string;
  name: string;
  /** IANA zone used for schedules and as the last fallback for quiet hours. */
  timeZone: string;
  createdAt: string;
}

export interface ApiKeyRecord {
  keyId: string;
  organizationId: string;
  name: string;
  scopes: Permission[];
  createdAt: string;
  revokedAt?: string;
}

const apiKeyPattern = /^sk_([0-9A-HJKMNP-TV-Z]{26})_([A-Za-z0-9_-]{32,})$/;

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
    const { apiKey, record } = newApiKey(organization.id, "Default key", [...permissions]);
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
      { Put: { Item: apiKeyItem(record, apiKey) } },
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

  /** Issues another `sk_` key; the plain key is returned once and stored only hashed. */
  async issueApiKey(
    organizationId: string,
    input: { name: string; scopes?: Permission[] },
  ): Promise<{ apiKey: string; record: ApiKeyRecord }> {
    const { apiKey, record } = newApiKey(organizationId, input.name, input.scopes ?? [...permissions]);
    await table.put({ Item: apiKeyItem(record, apiKey) });
    return { apiKey, record };
  },

  /** Resolves an `sk_` key in one read; undefined when unknown, malformed or revoked. */
  async resolveApiKey(apiKey: string): Promise<ApiKeyRecord | undefined> {
    const match = apiKeyPattern.exec(apiKey);
    if (!match) return undefined;
    const organizationId = match[1]!;
    const { Item } = await table.get({ Key: keys.apiKey(organizationId, hashSecret(apiKey)) });
    if (!Item || Item.revokedAt) return undefined;
    return {
      keyId: Item.keyId,
      organizationId: Item.organizationId,
      name: Item.name,
      scopes: Item.scopes,
      createdAt: Item.createdAt,
    };
  },
};

function newApiKey(organizationId: string, name: string, scopes: Permission[]) {
  const apiKey = `sk_${organizationId}_${randomSecret()}`;
  const record: ApiKeyRecord = { keyId: newId(), organizationId, name, scopes, createdAt: nowIso() };
  return { apiKey, record };
}

function apiKeyItem(record: ApiKeyRecord, apiKey: string) {
  return { ...keys.apiKey(record.organizationId, hashSecret(apiKey)), entity: entities.apiKey, ...record };
}

function toOrganization(item: Record<string, unknown>): Organization {
  return {
    id: item.id as string,
    name: item.name as string,
    timeZone: item.timeZone as string,
    createdAt: item.createdAt as string,
  };
}
