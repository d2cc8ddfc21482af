import { randomUUID } from "node:crypto";
import type { BrandReport, CampaignReport, TenDlcRegistrar, TollFreeReport } from "#core/providers/registration";

/**
 * The simulator's registry: a brand or campaign is Pending when submitted and
 * decided at its first status check (the next refresh): approved (brand vetting
 * score 75), or rejected when its display name (brand) or description
 * (campaign) or use case summary (toll-free verification) contains "rejected", so the local stack can walk both
 * paths.
 */
const brands = new Map<string, { reject: boolean }>();
const campaigns = new Map<string, { reject: boolean }>();
const tollFree = new Map<string, { reject: boolean }>();
/** What each submission reference created (a retry after a crash finds it). */
const submitted = new Map<string, string>();

function decide<T extends BrandReport | CampaignReport | TollFreeReport>(
  registry: Map<string, { reject: boolean }>,
  reference: string,
  approved: Partial<T>,
  reason: string,
): T {
  const entry = registry.get(reference);
  // A registration from before the local stack restarted (the registry lives in the process) stays approved.
  if (entry?.reject) return { reference, status: "Rejected", failureReason: reason } as T;
  return { reference, status: "Approved", ...approved } as T;
}

/** A submission, pending until its first status check; rejected then when `text` says "rejected". */
function submit(
  registry: Map<string, { reject: boolean }>,
  kind: string,
  text: string,
  submission: string,
): { reference: string; status: "Pending" } {
  const reference = `SIM${kind}-${randomUUID()}`;
  registry.set(reference, { reject: /rejected/i.test(text) });
  submitted.set(submission, reference);
  return { reference, status: "Pending" };
}

/** What a submission created, if this process saw it. */
function found(submission: string): { reference: string; status: "Pending" } | undefined {
  const reference = submitted.get(submission);
  return reference ? { reference, status: "Pending" } : undefined;
}

export function createSimulatorRegistrar(): TenDlcRegistrar {
  return {
    registerBrand: async (details, submission) => submit(brands, "BRAND", details.displayName, submission),
    findBrand: async (_details, submission) => found(submission),
    async fetchBrand(reference) {
      return decide<BrandReport>(
        brands,
        reference,
        { vettingScore: 75 },
        "The simulator rejects brands whose display name says 'rejected'.",
      );
    },
    registerCampaign: async (_brand, details, submission) =>
      submit(campaigns, "CAMPAIGN", details.description, submission),
    findCampaign: async (_brand, _details, submission) => found(submission),
    async fetchCampaign(reference) {
      return decide<CampaignReport>(
        campaigns,
        reference,
        {},
        "The simulator rejects campaigns whose description says 'rejected'.",
      );
    },
    submitTollFree: async (details, submission) => submit(tollFree, "TOLLFREE", details.useCaseSummary, submission),
    findTollFree: async (_details, submission) => found(submission),
    async fetchTollFree(reference) {
      const decided = decide<TollFreeReport>(
        tollFree,
        reference,
        {},
        "The simulator rejects toll-free verifications whose use case summary says 'rejected'.",
      );
      return decided.status === "Rejected" ? { ...decided, editAllowed: true } : decided;
    },
    // The simulator decides at the next refresh; it posts no status events.
    parseStatusCallback: () => [],
    async assignNumber() {},
  };
}
