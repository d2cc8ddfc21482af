import { defineEntity } from "#core/db/entity";
import { billingKeys } from "#core/db/keys/billing";
import { org } from "#core/db/keys/shared";

/** What identifies a usage day: the organization, the UTC day and the wallet part (`W` or a shard's number) charged. */
type UsageDayIdentity = { organizationId: string; day: string; walletPart: string };
type StoredUsageDay = UsageDayIdentity & Record<string, unknown>;

/**
 * The UsageDay entity (docs/data-model.md): one day's charges on one wallet part, as counters per ledger reason,
 * under the organization in day order, so a period is one key range of at most 9 items a day.
 */
export const UsageDayEntity = defineEntity({
  name: "UsageDay",
  attributes: [],
  key: ({ organizationId, day, walletPart }: UsageDayIdentity) => billingKeys.usageDay(organizationId, day, walletPart),
  identity: ({ organizationId, day, walletPart }: StoredUsageDay) => ({ organizationId, day, walletPart }),
  collection: {
    name: "byDay",
    pk: (usage: StoredUsageDay) => org(usage.organizationId),
    sk: (usage: StoredUsageDay) => billingKeys.usageDay(usage.organizationId, usage.day, usage.walletPart).sk,
  },
  indexes: {},
});
