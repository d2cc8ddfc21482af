import { consentRecord } from "#core/compliance/consent-record";
import { endpoint } from "#core/http/endpoint";
import { getLeadConsentRecord } from "#core/http/operations/consent";

export const handler = endpoint(getLeadConsentRecord, ({ actor, params }) => consentRecord(actor, params.id));
