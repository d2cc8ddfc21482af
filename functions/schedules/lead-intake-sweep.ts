import { LeadProcessing } from "#core/leads/processing";

/** Republishes leads still Pending after their message was lost (the write-then-publish gap). */
export const handler = async (): Promise<{ republished: number }> => ({ republished: await LeadProcessing.sweep() });
