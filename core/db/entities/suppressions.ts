import { defineEntity } from "#core/db/entity";
import { org, ordered, type Key } from "#core/db/keys/shared";

/** Keys of the items core/suppressions owns (docs/data-model.md). */
export const suppressionsKeys = {
  /** Suppressed (opted-out) phone numbers; owned by messaging, read by lead processing. */
  suppression: (organizationId: string, e164: string): Key => ({ pk: org(organizationId), sk: `SUPPRESSION#${e164}` }),
  suppressionPrefix: (organizationId: string) => ({ pk: org(organizationId), skPrefix: "SUPPRESSION#" }),
};

/** A stored suppression: the number, its organization and the rest of the entry. */
type StoredSuppression = { organizationId: string; phoneNumber: string; createdAt?: string } & Record<string, unknown>;

/**
 * The Suppression entity (docs/data-model.md): one item per suppressed number under its organization, in number
 * order, and an entry in the order the numbers were added (the list's default order).
 */
export const SuppressionEntity = defineEntity({
  name: "Suppression",
  attributes: [],
  key: ({ organizationId, phoneNumber }: { organizationId: string; phoneNumber: string }) =>
    suppressionsKeys.suppression(organizationId, phoneNumber),
  identity: ({ organizationId, phoneNumber }: StoredSuppression) => ({ organizationId, phoneNumber }),
  indexes: {
    /** The organization's suppressions by when each number was added. */
    byCreated: {
      index: "sortedByField",
      pk: (suppression: StoredSuppression) => `${org(suppression.organizationId)}#SUPPRESSIONS#CREATED`,
      sk: (suppression: StoredSuppression) => ordered(suppression.createdAt ?? "", suppression.phoneNumber ?? ""),
      composites: ["createdAt"],
    },
  },
});
