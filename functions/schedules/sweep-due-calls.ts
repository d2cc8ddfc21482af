import { sweepDueCalls } from "#core/calls/sweeper";

/** EventBridge, every 5 minutes: calls whose final status never came are ended and their holds released. */
export const handler = async (): Promise<void> => {
  const result = await sweepDueCalls();
  if (result.reported + result.expired + result.errors > 0) console.log(JSON.stringify({ level: "info", sweep: "dueCalls", ...result }));
};
