import { consentRecord, consentRecordPage } from "#core/compliance/consent-record";
import { endpoint } from "#core/http/endpoint";
import { HttpResponse } from "#core/http/response";
import { printLeadConsentRecord } from "#core/http/operations/consent";

export const handler = endpoint(printLeadConsentRecord, async ({ actor, params }) =>
  HttpResponse.text(200, consentRecordPage(await consentRecord(actor, params.id)), "text/html; charset=utf-8"),
);
