import { ProviderError } from "#core/providers/port";
import type {
  BrandDetails,
  BrandReport,
  CampaignDetails,
  CampaignReport,
  RegistrationStatus,
  TenDlcRegistrar,
} from "#core/providers/registration";

/** The Telnyx adapter's JSON request (`flat`: the 10DLC API answers the resource itself, not `{ data }`). */
type TelnyxRequest = (
  path: string,
  body?: unknown,
  options?: { flat?: boolean; list?: boolean },
) => Promise<Record<string, unknown> | undefined>;

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
    async registerBrand(details: BrandDetails): Promise<BrandReport> {
      return brandReport(
        await request(
          "/v2/10dlc/brand",
          {
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
    async fetchBrand(reference: string): Promise<BrandReport> {
      return brandReport(await request(`/v2/10dlc/brand/${encodeURIComponent(reference)}`, undefined, { flat: true }));
    },
    async registerCampaign(brandReference: string, details: CampaignDetails): Promise<CampaignReport> {
      const samples = Object.fromEntries(details.sampleMessages.map((sample, index) => [`sample${index + 1}`, sample]));
      return campaignReport(
        await request(
          "/v2/10dlc/campaignBuilder",
          {
            brandId: brandReference,
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
          },
          { flat: true },
        ),
      );
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
