import { ProviderError, type WebhookRequest } from "#core/providers/port";
import { registrationCallbackUrl } from "#core/providers/registration";
import type {
  BrandDetails,
  BrandReport,
  CampaignDetails,
  CampaignReport,
  RegistrationStatus,
  SubmissionReference,
  TenDlcRegistrar,
} from "#core/providers/registration";

import { createTelnyxTollFree, type TelnyxRequest } from "#core/providers/telnyx/toll-free";

/**
 * Telnyx 10DLC (API v2, `Authorization: Bearer`): `POST /v2/10dlc/brand`,
 * `GET /v2/10dlc/brand/{brandId}` (+ `/externalVetting` for the vetting
 * score), `POST /v2/10dlc/campaignBuilder`, `GET /v2/10dlc/campaign/{id}`,
 * `POST /v2/10dlc/phone_number_campaigns`. The number must already be on the
 * messaging profile (bought and registered numbers are).
 */
export function createTelnyxRegistrar(request: TelnyxRequest): TenDlcRegistrar {
  async function brandReport(brand: Record<string, unknown> | undefined): Promise<BrandReport> {
    const reference = String(brand?.["brandId"] ?? "");
    if (!reference)
      throw new ProviderError(
        "transient",
        "malformed_response",
        "Telnyx answered the brand request without a brandId",
        { ambiguous: true },
      );
    const status = brandStatus(String(brand?.["status"] ?? ""), String(brand?.["identityStatus"] ?? ""));
    const reason = brand?.["failureReasons"];
    let vettingScore: number | undefined;
    if (brand?.["identityStatus"] === "VETTED_VERIFIED") {
      const vettings = (await request(`/v2/10dlc/brand/${encodeURIComponent(reference)}/externalVetting`, undefined, {
        flat: true,
        list: true,
      })) as unknown as { vettingScore?: number }[];
      const scores = (Array.isArray(vettings) ? vettings : [])
        .map((vetting) => vetting.vettingScore)
        .filter((score): score is number => typeof score === "number");
      if (scores.length) vettingScore = Math.max(...scores);
    }
    return {
      reference,
      status,
      ...(status === "Rejected" && reason ? { failureReason: String(reason) } : {}),
      ...(vettingScore !== undefined ? { vettingScore } : {}),
    };
  }

  function campaignReport(campaign: Record<string, unknown> | undefined): CampaignReport {
    const reference = String(campaign?.["campaignId"] ?? "");
    if (!reference)
      throw new ProviderError(
        "transient",
        "malformed_response",
        "Telnyx answered the campaign request without a campaignId",
        { ambiguous: true },
      );
    const status = campaignStatus(String(campaign?.["campaignStatus"] ?? ""));
    const reason = campaign?.["failureReasons"];
    return { reference, status, ...(status === "Rejected" && reason ? { failureReason: String(reason) } : {}) };
  }

  return {
    ...createTelnyxTollFree(request),
    async registerBrand(details: BrandDetails, submission: SubmissionReference): Promise<BrandReport> {
      return brandReport(
        await request(
          "/v2/10dlc/brand",
          {
            referenceId: submission,
            webhookURL: registrationCallbackUrl("telnyx"),
            entityType: details.entityType,
            displayName: details.displayName,
            companyName: details.legalName,
            ein: details.ein,
            phone: details.phone,
            email: details.email,
            website: details.website,
            street: details.street,
            city: details.city,
            state: details.state,
            postalCode: details.postalCode,
            country: details.country,
            vertical: details.vertical,
          },
          { flat: true },
        ),
      );
    },
    async findBrand(details: BrandDetails, submission: SubmissionReference): Promise<BrandReport | undefined> {
      // The list answers a summary without referenceId: the brands of that display name are read one by one.
      const listed = await request(
        `/v2/10dlc/brand?${new URLSearchParams({ displayName: details.displayName, recordsPerPage: "500" }).toString()}`,
        undefined,
        { flat: true },
      );
      for (const record of records(listed)) {
        const brand = await request(`/v2/10dlc/brand/${encodeURIComponent(String(record["brandId"]))}`, undefined, {
          flat: true,
        });
        if (brand?.["referenceId"] === submission) return brandReport(brand);
      }
      return undefined;
    },
    parseStatusCallback(request: WebhookRequest): string[] {
      const event = parseJson(request.body) as { data?: { event_type?: string; payload?: Record<string, unknown> } };
      const payload = event?.data?.payload ?? {};
      const type = event?.data?.event_type ?? "";
      // `10dlc.brand.update`, `10dlc.campaign.update`; a number assignment's event names its campaign too.
      const named = type.startsWith("10dlc.brand.") ? payload["brandId"] : payload["campaignId"];
      return type.startsWith("10dlc.") && typeof named === "string" && named ? [named] : [];
    },
    async fetchBrand(reference: string): Promise<BrandReport> {
      return brandReport(await request(`/v2/10dlc/brand/${encodeURIComponent(reference)}`, undefined, { flat: true }));
    },
    async registerCampaign(brandReference: string, details: CampaignDetails): Promise<CampaignReport> {
      return campaignReport(
        await request("/v2/10dlc/campaignBuilder", campaignBody(brandReference, details), { flat: true }),
      );
    },
    async findCampaign(
      brandReference: string,
      details: CampaignDetails,
      _submission: SubmissionReference,
      known: string[],
    ): Promise<CampaignReport | undefined> {
      // A campaign keeps no reference of ours: the brand's campaign with the submission's use case and description
      // that no stored campaign names is the one the interrupted attempt created.
      const listed = await request(
        `/v2/10dlc/campaign?${new URLSearchParams({ brandId: brandReference, recordsPerPage: "500" }).toString()}`,
        undefined,
        { flat: true },
      );
      const created = records(listed).find(
        (campaign) =>
          campaign["usecase"] === details.useCase &&
          campaign["description"] === details.description &&
          !known.includes(String(campaign["campaignId"])),
      );
      return created ? campaignReport(created) : undefined;
    },
    async fetchCampaign(reference: string): Promise<CampaignReport> {
      return campaignReport(
        await request(`/v2/10dlc/campaign/${encodeURIComponent(reference)}`, undefined, { flat: true }),
      );
    },
    async assignNumber(campaignReference: string, number): Promise<void> {
      await request(
        "/v2/10dlc/phone_number_campaigns",
        { phoneNumber: number.phoneNumber, campaignId: campaignReference },
        { flat: true },
      );
    },
  };
}

/** The campaign builder's body: our campaign in Telnyx's (TCR's) field names. */
function campaignBody(brandReference: string, details: CampaignDetails): Record<string, unknown> {
  const samples = Object.fromEntries(details.sampleMessages.map((sample, index) => [`sample${index + 1}`, sample]));
  return {
    brandId: brandReference,
    webhookURL: registrationCallbackUrl("telnyx"),
    usecase: details.useCase,
    description: details.description,
    messageFlow: details.messageFlow,
    helpMessage: details.helpMessage,
    optoutMessage: details.optOutMessage,
    ...samples,
    embeddedLink: details.hasEmbeddedLinks,
    embeddedPhone: details.hasEmbeddedPhone,
    subscriberOptin: true,
    subscriberOptout: true,
    subscriberHelp: true,
  };
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** The records of a 10DLC list answer (`{ records, page, totalRecords }`). */
function records(listed: Record<string, unknown> | undefined): Record<string, unknown>[] {
  const found = listed?.["records"];
  return Array.isArray(found) ? (found as Record<string, unknown>[]) : [];
}

/** A brand is usable once TCR verified its identity; a failed registration or an unverified identity is refused. */
function brandStatus(status: string, identityStatus: string): RegistrationStatus {
  if (status === "REGISTRATION_FAILED" || identityStatus === "UNVERIFIED") return "Rejected";
  if (status === "OK" && (identityStatus === "VERIFIED" || identityStatus === "VETTED_VERIFIED")) return "Approved";
  return "Pending";
}

/** Telnyx campaign statuses: accepted by TCR and Telnyx, then provisioned at the carriers (MNO) = Approved. */
function campaignStatus(status: string): RegistrationStatus {
  if (status === "MNO_PROVISIONED" || status === "ACTIVE") return "Approved";
  if (/FAILED|REJECTED|SUSPENDED|EXPIRED/.test(status)) return "Rejected";
  return "Pending";
}
