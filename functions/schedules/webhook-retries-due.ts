import { scheduledJob } from "#core/maintenance/schedule-runs";
import * as DueRetries from "#core/webhooks/due-retries";

/** EventBridge, every minute: webhook retries whose time has come (long waits, lost delayed messages) are published. */
export const handler = scheduledJob("webhookRetriesDue", async () => {
  const published = await DueRetries.publishDue();
  if (published > 0) console.log(JSON.stringify({ level: "info", schedule: "webhookRetriesDue", published }));
  return { published };
});
