import { ProviderError } from "#core/providers/port";
import type {
  RegistrationStatus,
  SubmissionReference,
  TollFreeDetails,
  TollFreeReport,
  TollFreeUse,
  TollFreeVerifier,
} from "#core/providers/registration";
import type { Form } from "./http.ts";

/** Our toll-free use cases as Twilio's UseCaseCategories. */
const USE_CASES: Record<TollFreeUse["useCase"], string> = {
  CUSTOMER_CARE: "CUSTOMER_CARE",
  ACCOUNT_NOTIFICATIONS: "ACCOUNT_NOTIFICATIONS",
  DELIVERY_NOTIFICATIONS: "DELIVERY_NOTIFICATIONS",
  TWO_FACTOR_AUTHENTICATION: "TWO_FACTOR_AUTHENTICATION",
  MARKETING: "MARKETING",
};

/**
 * Twilio toll-free verification (`messaging.twilio.com/v1/Tollfree/Verifications`): one `HH…` per number, named by
 * its `PN…` sid, with the brand's TrustHub customer profile attached (read from the brand registration) and our
 * submission as `ExternalReferenceId`, by which a retry after a crash finds it. Statuses PENDING_REVIEW and IN_REVIEW,
 * then TWILIO_APPROVED or TWILIO_REJECTED (`rejection_reason`, `error_code`, `edit_allowed`).
 */
export function createTwilioTollFree(
  messaging: string,
  call: (url: string, form?: Form) => Promise<Record<string, unknown>>,
): TollFreeVerifier {
  const numberSid = (details: TollFreeDetails) => {
    if (!details.number.providerNumberId)
      throw new ProviderError(
        "permanent",
        "number_not_at_twilio",
        `${details.number.phoneNumber} has no Twilio phone number sid; register it through POST /phone-numbers first.`,
      );
    return details.number.providerNumberId;
  };
  return {
    async submitTollFree(details: TollFreeDetails, submission: SubmissionReference): Promise<TollFreeReport> {
      const brand = await call(`${messaging}/v1/a2p/BrandRegistrations/${encodeURIComponent(details.brandReference)}`);
      const profile = brand["customer_profile_bundle_sid"];
      const { business } = details;
      return report(
        await call(`${messaging}/v1/Tollfree/Verifications`, [
          ["TollfreePhoneNumberSid", numberSid(details)],
          ["BusinessName", business.legalName],
          ["BusinessWebsite", business.website],
          ["NotificationEmail", business.email],
          ["UseCaseCategories", USE_CASES[details.useCase]],
          ["UseCaseSummary", details.useCaseSummary],
          ["ProductionMessageSample", details.productionMessageSample],
          ...details.optInImageUrls.map((url): [string, string] => ["OptInImageUrls", url]),
          ["OptInType", details.optInType],
          ["MessageVolume", details.messageVolume],
          ...(typeof profile === "string" && profile ? [["CustomerProfileSid", profile] as [string, string]] : []),
          ["BusinessStreetAddress", business.street],
          ["BusinessCity", business.city],
          ["BusinessStateProvinceRegion", business.state],
          ["BusinessPostalCode", business.postalCode],
          ["BusinessCountry", business.country],
          ["BusinessContactFirstName", details.contactFirstName],
          ["BusinessContactLastName", details.contactLastName],
          ["BusinessContactEmail", business.email],
          ["BusinessContactPhone", business.phone],
          ["BusinessRegistrationNumber", business.ein],
          ["ExternalReferenceId", submission],
          ...(details.additionalInformation
            ? [["AdditionalInformation", details.additionalInformation] as [string, string]]
            : []),
        ]),
      );
    },
    async findTollFree(details: TollFreeDetails, submission: SubmissionReference) {
      const query = new URLSearchParams({ TollfreePhoneNumberSid: numberSid(details), PageSize: "50" });
      const page = await call(`${messaging}/v1/Tollfree/Verifications?${query.toString()}`);
      const listed = Array.isArray(page["verifications"]) ? (page["verifications"] as Record<string, unknown>[]) : [];
      const created = listed.find((candidate) => candidate["external_reference_id"] === submission);
      return created ? report(created) : undefined;
    },
    async fetchTollFree(reference: string): Promise<TollFreeReport> {
      return report(await call(`${messaging}/v1/Tollfree/Verifications/${encodeURIComponent(reference)}`));
    },
  };
}

function report(verification: Record<string, unknown>): TollFreeReport {
  const reference = verification["sid"];
  if (typeof reference !== "string" || !reference)
    throw new ProviderError("transient", "malformed_response", "Twilio answered the verification without a sid", {
      ambiguous: true,
    });
  const status = tollFreeStatus(String(verification["status"] ?? ""));
  if (status !== "Rejected") return { reference, status };
  const reason = verification["rejection_reason"];
  const code = verification["error_code"];
  return {
    reference,
    status,
    ...(typeof reason === "string" && reason ? { failureReason: reason } : {}),
    ...(code !== null && code !== undefined ? { errorCode: String(code) } : {}),
    editAllowed: verification["edit_allowed"] === true,
  };
}

function tollFreeStatus(status: string): RegistrationStatus {
  if (status === "TWILIO_APPROVED") return "Approved";
  if (status === "TWILIO_REJECTED") return "Rejected";
  return "Pending"; // PENDING_REVIEW, IN_REVIEW
}
