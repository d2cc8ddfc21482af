import { sweepHolds } from "#core/billing/hold-sweeper";

/** EventBridge, every 15 minutes: wallet holds whose message or call is final or gone are settled or released. */
export const handler = async (): Promise<void> => {
  const result = await sweepHolds();
  if (result.settled + result.released + result.errors > 0) console.log(JSON.stringify({ level: "info", sweep: "holds", ...result }));
};
