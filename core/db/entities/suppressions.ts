import { defineEntity } from "#core/db/entity";
import { org, ordered, ownPartition, type Key } from "#core/db/keys/shared";

/** Keys of the items core/suppressions owns (docs/data-model.md). */
export const suppressionsKeys = {
  /**
   * A suppressed (opted-out) phone number, in a partition of its own (issue 27: every send attempt reads it
   * consistently, ~4 read units a lead the organization's partition could not carry); owned by messaging, read by
   * lead processing.
   */
  suppression: (organizationId: string, e164: string): Key => ownPartition(organizationId, `SUPPRESSION#${e164}`),
};

/** A stored suppression: the number, its organization and the rest of the entry. */
type StoredSuppression = { organizationId: string; phoneNumber: string; createdAt?: string } & Record<string, unknown>;

/**
 * The Suppression entity (docs/data-model.md): one item per suppressed number, each in a partition of its own, listed
 * in number order and in the order the numbers were added (the list's default order). The list's partitions take a
 * write only when a number is added or lifted (an opt-out, an operator's entry): not sharded.
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
    /** The organization's suppressions in number order (the sort key the entry had in the organization's partition). */
    byNumber: {
      index: "suppressionsByNumber",
      pk: (suppression: StoredSuppression) => `${org(suppression.organizationId)}#SUPPRESSIONS`,
      sk: (suppression: StoredSuppression) => `SUPPRESSION#${suppression.phoneNumber ?? ""}`,
      composites: ["phoneNumber"],
    },
  },
});
