import { ProviderError } from "#core/providers/port";
import type {
  RegistrationStatus,
  SubmissionReference,
  TollFreeDetails,
  TollFreeReport,
  TollFreeUse,
  TollFreeVerifier,
} from "#core/providers/registration";

/** The Telnyx adapter's JSON request (`flat`: the answer is the resource itself, not `{ data }`). */
export type TelnyxRequest = (
  path: string,
  body?: unknown,
  options?: { flat?: boolean; list?: boolean },
) => Promise<Record<string, unknown> | undefined>;

/** Our toll-free use cases in Telnyx's words (its `useCase` picklist). */
const USE_CASES: Record<TollFreeUse["useCase"], string> = {
  CUSTOMER_CARE: "Customer Care",
  ACCOUNT_NOTIFICATIONS: "Account Notifications",
  DELIVERY_NOTIFICATIONS: "Delivery Notifications",
  TWO_FACTOR_AUTHENTICATION: "2FA",
  MARKETING: "Marketing",
};

const PATH = "/v2/messaging_tollfree/verification/requests";

/** How far Telnyx's clock may be behind ours when a request's creation time is compared with our submission's start. */
const CLOCK_SKEW_MS = 5_000;

/**
 * Telnyx toll-free verification (`/v2/messaging_tollfree/verification/requests`, JSON, answered flat): the business
 * and its contact, the numbers, the use and opt-in, and the business registration number, type and country Telnyx
 * requires of every submission from 17 February 2026. It keeps no reference of ours: a retry after a crash lists the
 * number's requests created since the submission began (`date_start`, and `createdAt` where answered) and takes one
 * no stored verification names: a request older than the submission (another attempt's, or one made in the portal)
 * is not this submission's. `verificationStatus` Verified or Rejected (`reason`)
 * decides; Telnyx lets a rejected request be corrected and submitted again.
 */
export function createTelnyxTollFree(request: TelnyxRequest): TollFreeVerifier {
  return {
    async submitTollFree(details: TollFreeDetails): Promise<TollFreeReport> {
      const { business } = details;
      return report(
        await request(
          PATH,
          {
            businessName: business.legalName,
            corporateWebsite: business.website,
            businessAddr1: business.street,
            businessCity: business.city,
            businessState: business.state,
            businessZip: business.postalCode,
            businessContactFirstName: details.contactFirstName,
            businessContactLastName: details.contactLastName,
            businessContactEmail: business.email,
            businessContactPhone: business.phone,
            messageVolume: details.messageVolume,
            phoneNumbers: [{ phoneNumber: details.number.phoneNumber }],
            useCase: USE_CASES[details.useCase],
            useCaseSummary: details.useCaseSummary,
            productionMessageContent: details.productionMessageSample,
            optInWorkflow: `${details.optInType}: ${details.useCaseSummary}`.slice(0, 500),
            optInWorkflowImageURLs: details.optInImageUrls.map((url) => ({ url })),
            additionalInformation: details.additionalInformation ?? "",
            businessRegistrationNumber: business.ein,
            businessRegistrationType: "EIN",
            businessRegistrationCountry: business.country,
          },
          { flat: true },
        ),
      );
    },
    async findTollFree(details: TollFreeDetails, _submission: SubmissionReference, known: string[], startedAt: string) {
      // Telnyx's clock may run a little behind ours: a request created just after we began can carry an earlier time.
      const since = new Date(Date.parse(startedAt) - CLOCK_SKEW_MS).toISOString();
      const query = new URLSearchParams({
        page: "1",
        page_size: "100",
        phone_number: details.number.phoneNumber,
        date_start: since,
      });
      const listed = await request(`${PATH}?${query.toString()}`, undefined, { flat: true });
      const records = Array.isArray(listed?.["records"]) ? (listed["records"] as Record<string, unknown>[]) : [];
      const created = records.find(
        (record) =>
          !known.includes(String(record["id"])) &&
          (typeof record["createdAt"] !== "string" || Date.parse(record["createdAt"]) >= Date.parse(since)),
      );
      return created ? report(created) : undefined;
    },
    async fetchTollFree(reference: string): Promise<TollFreeReport> {
      return report(await request(`${PATH}/${encodeURIComponent(reference)}`, undefined, { flat: true }));
    },
  };
}

function report(verification: Record<string, unknown> | undefined): TollFreeReport {
  const reference = String(verification?.["id"] ?? "");
  if (!reference)
    throw new ProviderError("transient", "malformed_response", "Telnyx answered the verification without an id", {
      ambiguous: true,
    });
  const status = tollFreeStatus(String(verification?.["verificationStatus"] ?? ""));
  if (status !== "Rejected") return { reference, status };
  const reason = verification?.["reason"];
  return {
    reference,
    status,
    ...(typeof reason === "string" && reason ? { failureReason: reason } : {}),
    editAllowed: true,
  };
}

/** Verified or Rejected decide; Waiting For Vendor / Customer / Telnyx and In Progress are still under review. */
function tollFreeStatus(status: string): RegistrationStatus {
  if (status === "Verified") return "Approved";
  if (status === "Rejected") return "Rejected";
  return "Pending";
}
