import * as LeadProcessing from "#core/leads/processing";
import { scheduledJob } from "#core/maintenance/schedule-runs";

/** Republishes leads still Pending after their message was lost (the write-then-publish gap). */
export const handler = scheduledJob("leadIntakeSweep", async (): Promise<{ republished: number }> => ({
  republished: await LeadProcessing.sweep(),
}));
