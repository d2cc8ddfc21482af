import { org, ordered, type Key } from "#core/db/keys/shared";

/** Keys of the items core/suppressions owns (docs/data-model.md). */
export const suppressionsKeys = {
  /** Suppressed (opted-out) phone numbers; owned by messaging, read by lead processing. */
  suppression: (organizationId: string, e164: string): Key => ({ pk: org(organizationId), sk: `SUPPRESSION#${e164}` }),
  suppressionPrefix: (organizationId: string) => ({ pk: org(organizationId), skPrefix: "SUPPRESSION#" }),
  /** gsi4: the suppression list by when each number was added (the list's default order). */
  suppressionsByCreated: (organizationId: string, createdAt: string, e164: string) => ({
    gsi4pk: `${org(organizationId)}#SUPPRESSIONS#CREATED`,
    gsi4sk: ordered(createdAt, e164),
  }),
  suppressionsByCreatedPartition: (organizationId: string) => ({
    gsi4pk: `${org(organizationId)}#SUPPRESSIONS#CREATED`,
  }),
};
