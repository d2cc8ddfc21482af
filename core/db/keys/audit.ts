import { org, type Key } from "#core/db/keys/shared";

/** Keys of the items core/audit owns (docs/data-model.md). */
export const auditKeys = {
  /** One entry per change, keyed by a ULID: the key order is the time order (newest first when read backwards). */
  auditEntry: (organizationId: string, entryId: string): Key => ({ pk: org(organizationId), sk: `AUDIT#${entryId}` }),
  auditPrefix: (organizationId: string) => ({ pk: org(organizationId), skPrefix: "AUDIT#" }),
};
