import * as CarrierRegistration from "#core/carrier-registration/index";
import { scheduledJob } from "#core/maintenance/schedule-runs";

/** EventBridge, every 15 minutes: the registry's decision on each pending 10DLC brand and campaign. */
export const handler = scheduledJob("carrierRegistrationPoll", async () => {
  const result = await CarrierRegistration.refreshPending();
  if (result.organizations > 0)
    console.log(JSON.stringify({ level: "info", schedule: "carrierRegistrationPoll", ...result }));
  return result;
});
