import { org, type Key } from "#core/db/keys/shared";

/** Keys of the items core/suppressions owns (docs/data-model.md). */
export const suppressionsKeys = {
  /** Suppressed (opted-out) phone numbers; owned by messaging, read by lead processing. */
  suppression: (organizationId: string, e164: string): Key => ({ pk: org(organizationId), sk: `SUPPRESSION#${e164}` }),
  suppressionPrefix: (organizationId: string) => ({ pk: org(organizationId), skPrefix: "SUPPRESSION#" }),
  // Its entry in the order numbers were added: core/db/entities/suppressions.ts.
};
