import { endpoint } from "#core/http/endpoint";
import { recordLeadConsent } from "#core/http/operations/consent";
import { recordConsentEvidence } from "#core/leads/consent";

export const handler = endpoint(recordLeadConsent, ({ actor, params, body }) =>
  recordConsentEvidence(actor, params.id, body),
);
