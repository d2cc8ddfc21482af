import type { ScheduledEvent } from "aws-lambda";
import { chargePhoneNumberFees } from "#core/messaging/number-fee-run";
import { scheduledJob } from "#core/maintenance/schedule-runs";

/** EventBridge, daily: each phone number's fee for the billing month of the event's time, once per number and month. */
export const handler = scheduledJob("phoneNumberFees", async (event?: Pick<ScheduledEvent, "time">) => {
  const result = await chargePhoneNumberFees(event?.time ? { now: new Date(event.time) } : {});
  if (result.charged > 0) console.log(JSON.stringify({ level: "info", schedule: "phoneNumberFees", ...result }));
  return result;
});
