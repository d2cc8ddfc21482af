import { defineEntity } from "#core/db/entity";
import { org, type Key } from "#core/db/keys/shared";

/** Keys of the items core/idempotency owns (docs/data-model.md). */
export const idempotencyKeys = {
  /** Idempotency records of write routes, kept 24 h. */
  idempotency: (organizationId: string, scope: string, idempotencyKey: string): Key => ({
    pk: org(organizationId),
    sk: `IDEMPOTENCY#${scope}#${idempotencyKey}`,
  }),
};

/** What an idempotency record is about: one key of one client request scope. The record does not store it. */
export type IdempotencyIdentity = { organizationId: string; scope: string; idempotencyKey: string };

/**
 * The IdempotencyRecord entity (docs/data-model.md): one item per Idempotency-Key and route scope under the
 * organization, holding the claim (`state`, `inFlightUntil`, `resourceId`, the payload's fingerprint) and then the
 * answer, kept 24 h (`expiresAt`, DynamoDB TTL). No secondary index.
 */
export const IdempotencyEntity = defineEntity({
  name: "IdempotencyRecord",
  attributes: [],
  key: ({ organizationId, scope, idempotencyKey }: IdempotencyIdentity) =>
    idempotencyKeys.idempotency(organizationId, scope, idempotencyKey),
  identity: ({ organizationId, scope, idempotencyKey }: IdempotencyIdentity) => ({
    organizationId,
    scope,
    idempotencyKey,
  }),
  indexes: {},
});
