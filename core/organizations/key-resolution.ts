import type { Permission } from "#core/auth/actor";
import { ApiKeyEntity } from "#core/db/entities/organizations";
import { where } from "#core/db/expression";
import { conditionally, table } from "#core/db/items";
import { nowIso } from "#core/shared/ids";
import { hashSecret } from "#core/shared/secrets";

/** What authentication needs of a key. */
export interface ApiKeyRecord {
  keyId: string;
  organizationId: string;
  name: string;
  scopes: Permission[];
  createdAt: string;
}

const apiKeyPattern = /^sk_([0-9A-HJKMNP-TV-Z]{26})_([A-Za-z0-9_-]{32,})$/;
/** `lastUsedAt` is written at most this often per key: a busy integration does not write on every request. */
const lastUsedPrecisionMs = 60 * 60_000;

export const isPast = (expiresAt: unknown) => typeof expiresAt === "number" && expiresAt * 1000 <= Date.now();

/**
 * Resolves an `sk_` key in one read; undefined when unknown, malformed, revoked or past its expiry. A small module
 * of its own: every API Lambda authenticates with it, and none needs the rest of key management.
 */
export async function resolveApiKey(apiKey: string): Promise<ApiKeyRecord | undefined> {
  const match = apiKeyPattern.exec(apiKey);
  if (!match) return undefined;
  const organizationId = match[1]!;
  const Item = await ApiKeyEntity.get({ organizationId, keyHash: hashSecret(apiKey) });
  if (!Item || Item.revokedAt || isPast(Item.expiresAt)) return undefined;
  if (!Item.lastUsedAt || Date.parse(Item.lastUsedAt as string) < Date.now() - lastUsedPrecisionMs)
    await markUsed(Item);
  return {
    keyId: Item.keyId as string,
    organizationId: Item.organizationId as string,
    name: Item.name as string,
    scopes: Item.scopes as Permission[],
    createdAt: Item.createdAt as string,
  };
}

async function markUsed(item: Record<string, unknown>): Promise<void> {
  const now = nowIso();
  // Conditional, so concurrent instances write it once an hour between them; a failure never refuses the request.
  await conditionally(
    table.update(
      ApiKeyEntity.update(
        item,
        { lastUsedAt: now },
        {
          condition: where.all(
            where.stored(),
            where.any(
              where.absent("lastUsedAt"),
              where.before("lastUsedAt", new Date(Date.now() - lastUsedPrecisionMs).toISOString()),
            ),
          ),
        },
      ),
    ),
  ).catch(() => undefined);
}
