import { reverifyDue } from "#core/leads/reverify";
import { scheduledJob } from "#core/maintenance/schedule-runs";

/** Tries again the consent verification of leads a certificate-API outage left Unverified (core/leads/reverify). */
export const handler = scheduledJob("consentReverify", async () => reverifyDue());
