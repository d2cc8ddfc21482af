import type { ScheduledEvent } from "aws-lambda";
import { chargePhoneNumberFees } from "#core/billing/number-fee-run";

/** EventBridge, daily: each phone number's fee for the billing month of the event's time, once per number and month. */
export const handler = async (event?: Pick<ScheduledEvent, "time">): Promise<void> => {
  const result = await chargePhoneNumberFees(event?.time ? { now: new Date(event.time) } : {});
  if (result.charged > 0) console.log(JSON.stringify({ level: "info", schedule: "phoneNumberFees", ...result }));
};
