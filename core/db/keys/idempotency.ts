import { org, type Key } from "#core/db/keys/shared";

/** Keys of the items core/idempotency owns (docs/data-model.md). */
export const idempotencyKeys = {
  /** Idempotency records of write routes, kept 24 h. */
  idempotency: (organizationId: string, scope: string, idempotencyKey: string): Key => ({
    pk: org(organizationId),
    sk: `IDEMPOTENCY#${scope}#${idempotencyKey}`,
  }),
};
