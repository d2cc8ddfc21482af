import type { Actor } from "#core/auth/actor";
import { conditionally, table } from "#core/db/items";
import { transact } from "#core/db/transact";
import { keys } from "#core/db/keys";
import {
  TenDlcBrandEntity,
  TenDlcCampaignEntity,
  TenDlcPendingEntity,
  TenDlcReferenceEntity,
} from "#core/db/entities/carrier-registration";
import { computed, where } from "#core/db/expression";
import { queryAll } from "#core/db/query";
import { CarrierUnavailableError, ConflictError, NotFoundError, UnprocessableError } from "#core/errors";
import * as PhoneNumbers from "#core/messaging/phone-numbers";
import { type PhoneNumber } from "#core/messaging/phone-numbers";
import { organizationProvider } from "#core/messaging/provider-choice";
import { registeringProvider, verifiedRegisteringProvider } from "#core/providers/registrars";
import type { ProviderPort, WebhookRequest } from "#core/providers/port";
import {
  registrationKey,
  type BrandReport,
  type CampaignReport,
  type TenDlcRegistrar,
} from "#core/providers/registration";
import { newId, nowIso } from "#core/shared/ids";
import { parsePhone } from "#core/shared/phone";
import type {
  Brand,
  BrandRequest,
  Campaign,
  CampaignRequest,
  RegistrationOverview,
} from "#core/carrier-registration/schemas";
import * as TollFreeVerifications from "#core/carrier-registration/toll-free";
import { readCampaigns, shown, toCampaign, withOptOuts, type StoredCampaign } from "#core/carrier-registration/reads";
import {
  atCarrier,
  beginSubmission,
  markPending,
  readBrand,
  recordUpdate,
  registrarByName,
  submitOnce,
} from "#core/carrier-registration/shared";

export * from "#core/carrier-registration/schemas";

/**
 * 10DLC registration of an organization: its brand and campaigns at its
 * carrier (the messaging settings' provider), their status as the registry
 * decides it, and the numbers attached to each campaign. The status is polled
 * (`refresh`, and the `carrierRegistrationPoll` schedule): a pending brand
 * until decided, a campaign until rejected (an approved one may still be
 * suspended); each decision is copied onto the attached numbers
 * (`PhoneNumbers.setRegistration`), which is what sender choice reads.
 */

/**
 * `POST /carrier-registration/brand`: submits the brand (again only after a rejection: each submission is billed by
 * the registry). The submission is stored first (`submissionId`: the Idempotency-Key's, else a new one), then the
 * carrier asked, then the brand stored with the submission removed; a submission found already stored was cut short,
 * so the carrier is asked for the brand it created before anything is submitted again.
 */
export async function registerBrand(actor: Actor, input: BrandRequest, submissionId: string = newId()): Promise<Brand> {
  const organizationId = actor.organizationId;
  const existing = await readBrand(organizationId);
  if (existing?.submissionId === submissionId) return shown(existing); // the same request again: its answer was lost
  if (existing && existing.status !== "Rejected") {
    throw new ConflictError(
      `The organization's brand is already ${existing.status}; only a rejected brand is submitted again.`,
    );
  }
  const { provider } = await registrarOf(organizationId);
  const submissionKey = keys.tenDlcBrandSubmission(organizationId);
  const submission = await beginSubmission(submissionKey, submissionId, provider.name, input);
  const registrar = registrarByName(submission.provider);
  const { report, details } = await submitOnce(
    submissionKey,
    submission,
    () => registrar.findBrand(submission.details, submission.reference),
    () => registrar.registerBrand(input, submission.reference),
    input,
  );
  const now = nowIso();
  const brand: Brand & { submissionId: string } = {
    ...details,
    submissionId: submission.reference,
    provider: submission.provider,
    providerBrandId: report.reference,
    status: "Pending",
    failureReason: null,
    vettingScore: null,
    submittedAt: now,
    decidedAt: null,
    checkedAt: null,
  };
  await transact([
    { Put: TenDlcBrandEntity.putAt({ organizationId }, applyBrand(brand, report, now)) },
    { Delete: { Key: submissionKey } },
    referenceItem(organizationId, submission.provider, report.reference),
  ]);
  await markPending(organizationId, "BRAND", report.status === "Pending");
  return shown((await readBrand(organizationId))!);
}

export async function brand(actor: Actor): Promise<Brand> {
  const brand = await readBrand(actor.organizationId);
  if (!brand) throw new NotFoundError("Brand", "of this organization");
  return shown(brand);
}

/**
 * `POST /carrier-registration/campaigns`: a campaign of the organization's approved brand, submitted like the brand
 * (its submission stored first, by the campaign's id: the Idempotency-Key's, else a new one).
 */
export async function registerCampaign(
  actor: Actor,
  input: CampaignRequest,
  campaignId: string = newId(),
): Promise<Campaign> {
  const organizationId = actor.organizationId;
  const stored = await readCampaign(organizationId, campaignId);
  if (stored) return withOptOuts(organizationId, stored); // the same request again: its answer was lost
  const brand = await readBrand(organizationId);
  if (brand?.status !== "Approved") {
    throw new ConflictError(
      brand
        ? `The brand is ${brand.status}; campaigns are registered once it is Approved.`
        : "Register the organization's brand first (POST /carrier-registration/brand).",
    );
  }
  const registrar = registrarByName(brand.provider);
  const submissionKey = keys.tenDlcCampaignSubmission(organizationId, campaignId);
  const submission = await beginSubmission(submissionKey, campaignId, brand.provider, input);
  const { report, details } = await submitOnce(
    submissionKey,
    submission,
    async () =>
      registrar.findCampaign(
        brand.providerBrandId,
        submission.details,
        campaignId,
        (await readCampaigns(organizationId)).map((campaign) => campaign.providerCampaignId),
      ),
    () => registrar.registerCampaign(brand.providerBrandId, input, campaignId),
    input,
  );
  const now = nowIso();
  const campaign: StoredCampaign = {
    id: campaignId,
    ...details,
    provider: brand.provider,
    providerCampaignId: report.reference,
    status: "Pending",
    failureReason: null,
    phoneNumberIds: [],
    submittedAt: now,
    decidedAt: null,
    checkedAt: null,
  };
  const submitted = applyCampaign(campaign, report, now);
  // The numbers are a string set, added to as they are attached (DynamoDB stores no empty set).
  const { phoneNumberIds: _none, ...item } = submitted;
  await transact([
    { Put: TenDlcCampaignEntity.putAt({ organizationId, id: campaign.id }, item) },
    { Delete: { Key: submissionKey } },
    referenceItem(organizationId, brand.provider, registrationKey(report.reference)),
  ]);
  await markPending(organizationId, `CAMPAIGN#${campaign.id}`, submitted.status !== "Rejected");
  return withOptOuts(organizationId, submitted);
}

export async function campaigns(actor: Actor): Promise<{ items: Campaign[] }> {
  return {
    items: await Promise.all(
      (await readCampaigns(actor.organizationId)).map((campaign) => withOptOuts(actor.organizationId, campaign)),
    ),
  };
}

export async function campaign(actor: Actor, campaignId: string): Promise<Campaign> {
  const campaign = await readCampaign(actor.organizationId, campaignId);
  if (!campaign) throw new NotFoundError("Campaign", campaignId);
  return withOptOuts(actor.organizationId, campaign);
}

/**
 * `PUT /phone-numbers/{phoneNumberId}/campaign`: attaches a number to an
 * approved campaign at the carrier, then here (moving it off any other
 * campaign). Repeating it is harmless (the carriers accept the same assignment).
 */
export async function attachNumber(actor: Actor, phoneNumberId: string, campaignId: string): Promise<PhoneNumber> {
  const organizationId = actor.organizationId;
  const [named, number, previous] = await Promise.all([
    campaign(actor, campaignId),
    PhoneNumbers.atCarrier(organizationId, phoneNumberId),
    PhoneNumbers.fromId(actor, phoneNumberId),
  ]);
  if (!number) throw new NotFoundError("Phone number", phoneNumberId);
  if (named.status !== "Approved")
    throw new ConflictError(`The campaign is ${named.status}; numbers are attached once it is Approved.`);
  if (parsePhone(number.phoneNumber)?.tollFree)
    throw new UnprocessableError(
      `${number.phoneNumber} is toll-free: carriers take no toll-free number on a 10DLC campaign; verify it instead (POST /phone-numbers/${phoneNumberId}/toll-free-verification).`,
    );
  if (number.provider && number.provider !== named.provider) {
    throw new UnprocessableError(
      `${number.phoneNumber} is held at ${number.provider}, the campaign is registered at ${named.provider}.`,
    );
  }
  await atCarrier(() => registrarByName(named.provider).assignNumber(named.providerCampaignId, number));
  const formerCampaignId = previous.registration?.campaignId;
  if (formerCampaignId && formerCampaignId !== campaignId)
    await updateNumbers(organizationId, formerCampaignId, "DELETE", phoneNumberId);
  await updateNumbers(organizationId, campaignId, "ADD", phoneNumberId);
  await PhoneNumbers.setRegistration(organizationId, phoneNumberId, {
    kind: "TenDlcCampaign",
    campaignId,
    status: named.status,
  });
  return PhoneNumbers.fromId(actor, phoneNumberId);
}

/**
 * `POST /webhooks/{provider}/registration`: a carrier's registration status event (signature checked first: 403).
 * It names a brand or campaign by the carrier's reference; the organization it belongs to is read again at the
 * carrier at once (the same refresh as the poll's, so the stored status is always the carrier's own answer, never
 * the event's words), which records `CarrierRegistrationUpdated` for each change. A reference we do not know is ignored.
 */
export async function statusCallback(providerName: string, request: WebhookRequest): Promise<void> {
  const provider = verifiedRegisteringProvider(providerName, request);
  const named = provider.registration?.parseStatusCallback(request) ?? [];
  const organizations = new Set<string>();
  for (const key of named) {
    const Item = await TenDlcReferenceEntity.get({ provider: provider.name, key }, { consistent: true });
    if (typeof Item?.organizationId === "string") organizations.add(Item.organizationId);
  }
  for (const organizationId of organizations) await refreshOrganization(organizationId);
}

/** `POST /carrier-registration/refresh`: asks the carrier now about the pending brand and every campaign not rejected. */
export async function refresh(actor: Actor): Promise<RegistrationOverview> {
  return refreshOrganization(actor.organizationId);
}

/** The `carrierRegistrationPoll` schedule: every organization with a pending brand or a live campaign, one after another. */
export async function refreshPending(): Promise<{ organizations: number; failed: number }> {
  const pending = await queryAll(TenDlcPendingEntity.query("collection", {}));
  const organizations = [...new Set(pending.map((item) => String(item.sk).split("#")[0]!))];
  let failed = 0;
  for (const organizationId of organizations) {
    // One carrier failing for one organization must not stop the others; the next run asks again.
    await refreshOrganization(organizationId).catch(() => failed++);
  }
  return { organizations: organizations.length, failed };
}

async function refreshOrganization(organizationId: string): Promise<RegistrationOverview> {
  let [brand, campaigns] = await Promise.all([readBrand(organizationId), readCampaigns(organizationId)]);
  const now = nowIso();
  if (brand?.status === "Pending") {
    const pending = brand;
    const report = await atCarrier(() => registrarByName(pending.provider).fetchBrand(pending.providerBrandId));
    brand = applyBrand(pending, report, now);
    await table.put(TenDlcBrandEntity.putAt({ organizationId }, brand));
    await markPending(organizationId, "BRAND", brand.status === "Pending");
    if (brand.status !== pending.status)
      await recordUpdate(organizationId, "TenDlcBrand", "brand", `The 10DLC brand ${brand.displayName}`, brand);
  }
  campaigns = await Promise.all(
    campaigns.map(async (campaign) => {
      // An approved campaign is asked again too: carriers suspend campaigns, and its numbers must stop sending then.
      if (campaign.status === "Rejected") return campaign;
      const report = await atCarrier(() =>
        registrarByName(campaign.provider).fetchCampaign(campaign.providerCampaignId),
      );
      const decided = applyCampaign(campaign, report, now);
      await conditionally(
        table.update(
          TenDlcCampaignEntity.update(
            { organizationId, id: campaign.id },
            {
              status: decided.status,
              failureReason: decided.failureReason,
              decidedAt: decided.decidedAt,
              checkedAt: now,
            },
            { condition: where.stored() },
          ),
        ),
      );
      await markPending(organizationId, `CAMPAIGN#${campaign.id}`, decided.status !== "Rejected");
      if (decided.status !== campaign.status)
        await recordUpdate(organizationId, "TenDlcCampaign", campaign.id, `The 10DLC campaign ${campaign.id}`, decided);
      // The numbers carry their campaign's decision: it is what gates their sends.
      await Promise.all(
        decided.phoneNumberIds.map((id) =>
          PhoneNumbers.setRegistration(organizationId, id, {
            kind: "TenDlcCampaign",
            campaignId: campaign.id,
            status: decided.status,
          }),
        ),
      );
      return decided;
    }),
  );
  return {
    brand: brand ? shown(brand) : null,
    campaigns: await Promise.all(campaigns.map((campaign) => withOptOuts(organizationId, campaign))),
    tollFreeVerifications: await TollFreeVerifications.refresh(organizationId),
  };
}

/** The index item naming the organization of a carrier reference (for its status callbacks). */
function referenceItem(organizationId: string, provider: string, key: string) {
  return { Put: TenDlcReferenceEntity.putAt({ provider, key }, { organizationId }) };
}

function applyBrand(brand: Brand, report: BrandReport, now: string): Brand {
  const decided = report.status !== "Pending";
  return {
    ...brand,
    status: report.status,
    failureReason:
      report.failureReason ??
      (report.status === "Rejected" ? "The registry refused the brand without a reason." : null),
    vettingScore: report.vettingScore ?? brand.vettingScore,
    decidedAt: decided ? now : null,
    checkedAt: now,
  };
}

function applyCampaign(campaign: StoredCampaign, report: CampaignReport, now: string): StoredCampaign {
  return {
    ...campaign,
    status: report.status,
    failureReason:
      report.failureReason ??
      (report.status === "Rejected" ? "The carriers refused the campaign without a reason." : null),
    decidedAt: report.status !== "Pending" ? now : null,
    checkedAt: now,
  };
}

async function readCampaign(organizationId: string, campaignId: string): Promise<StoredCampaign | undefined> {
  const item = await TenDlcCampaignEntity.get({ organizationId, id: campaignId }, { consistent: true });
  return item ? toCampaign(item) : undefined;
}

/** Adds or removes a number of a campaign's set (a string set: an empty one is removed by DynamoDB). */
async function updateNumbers(
  organizationId: string,
  campaignId: string,
  action: "ADD" | "DELETE",
  phoneNumberId: string,
): Promise<void> {
  const change = action === "ADD" ? computed.addToSet(phoneNumberId) : computed.deleteFromSet(phoneNumberId);
  await conditionally(
    table.update(
      TenDlcCampaignEntity.update(
        { organizationId, id: campaignId },
        { phoneNumberIds: change },
        { condition: where.stored() },
      ),
    ),
  );
}

async function registrarOf(organizationId: string): Promise<{ provider: ProviderPort; registrar: TenDlcRegistrar }> {
  const chosen = await atCarrier(() => organizationProvider(organizationId));
  // The same adapter, with its registrar (core/providers/registrars.ts).
  const provider = registeringProvider(chosen.name) ?? chosen;
  if (!provider.registration)
    throw new CarrierUnavailableError(`The ${provider.name} provider cannot register 10DLC brands.`);
  return { provider, registrar: provider.registration };
}
