import { TenDlcCampaignEntity } from "#core/db/entities/carrier-registration";
import { table } from "#core/db/items";
import { keys } from "#core/db/keys";
import { prefixQuery } from "#core/db/list";
import { queryAll } from "#core/db/query";
import * as NumberHealth from "#core/messaging/number-health";
import type { Brand, Campaign, RegistrationOverview, TollFreeVerification } from "#core/carrier-registration/schemas";

/**
 * Reads of the stored registration (brand, campaigns, toll-free verifications), apart from the verbs that call the
 * carrier: the registration overview of a webhook payload (`carrier_registration.updated`, built by the fan-out
 * consumer and replay) bundles no carrier adapter and no phone parsing.
 */

/** A campaign as stored; its opt-out figures are read from its numbers' health when it is answered. */
export type StoredCampaign = Omit<Campaign, "optOuts">;

export type StoredVerification = TollFreeVerification & { submissionId?: string };

export async function readBrand(organizationId: string): Promise<(Brand & { submissionId?: string }) | undefined> {
  const { Item } = await table.get({ Key: keys.tenDlcBrand(organizationId), ConsistentRead: true });
  return Item ? (strip(Item) as Brand) : undefined;
}

export function strip(item: Record<string, unknown>): Record<string, unknown> {
  const { pk: _pk, sk: _sk, entity: _entity, ...rest } = item;
  return rest;
}

export async function readCampaigns(organizationId: string): Promise<StoredCampaign[]> {
  const campaigns = TenDlcCampaignEntity.query(
    "collection",
    { organizationId },
    { range: { beginsWith: TenDlcCampaignEntity.sortKey("collection", {}) }, consistent: true },
  );
  return (await queryAll(campaigns)).map(toCampaign);
}

/** A brand as answered: the submission it came from is ours to know (a retry of that request finds it), not shown. */
export function shown({ submissionId: _submission, ...brand }: Brand & { submissionId?: string }): Brand {
  return brand;
}

export function toCampaign(item: Record<string, unknown>): StoredCampaign {
  const numbers = item.phoneNumberIds as Set<string> | string[] | undefined;
  return { ...(strip(item) as StoredCampaign), phoneNumberIds: numbers ? [...numbers].sort() : [] };
}

/** Opt-outs per campaign: the sum over its numbers' rolling windows. */
export async function withOptOuts(organizationId: string, campaign: StoredCampaign): Promise<Campaign> {
  const { finalOutcomes, optOuts } = await NumberHealth.totals(organizationId, campaign.phoneNumberIds);
  return {
    ...campaign,
    optOuts: {
      finalOutcomes,
      optOuts,
      optOutRate: finalOutcomes > 0 ? Math.round((optOuts / finalOutcomes) * 10_000) / 10_000 : null,
    },
  };
}

export async function readVerifications(organizationId: string): Promise<StoredVerification[]> {
  return (
    await queryAll({ ...prefixQuery(keys.tollFreeVerificationPrefix(organizationId)), ConsistentRead: true })
  ).map(stored);
}

export function stored(item: Record<string, unknown>): StoredVerification {
  const { organizationId: _organization, ...verification } = strip(item);
  return verification as StoredVerification;
}

/** A verification as answered: the submission it came from is ours (a retry of that request finds it), not shown. */
export function shownVerification({
  submissionId: _submission,
  ...verification
}: StoredVerification): TollFreeVerification {
  return verification;
}

/** The organization's toll-free verifications as stored. */
export async function tollFreeVerifications(organizationId: string): Promise<TollFreeVerification[]> {
  return (await readVerifications(organizationId)).map(shownVerification);
}

/** The organization's brand, campaigns and toll-free verifications as stored (a webhook's `carrier_registration.updated` data). */
export async function registrationOverview(organizationId: string): Promise<RegistrationOverview> {
  const [brand, campaigns, verifications] = await Promise.all([
    readBrand(organizationId),
    readCampaigns(organizationId),
    tollFreeVerifications(organizationId),
  ]);
  return {
    brand: brand ? shown(brand) : null,
    campaigns: await Promise.all(campaigns.map((campaign) => withOptOuts(organizationId, campaign))),
    tollFreeVerifications: verifications,
  };
}
