import { sweepDueMessages } from "#core/messaging/sweeper";

/** EventBridge, every minute: far-future scheduled sends, stuck dispatches, receipt timeouts. */
export const handler = async (): Promise<void> => {
  const result = await sweepDueMessages();
  if (result.released + result.dispatched + result.expired > 0) console.log(JSON.stringify({ level: "info", sweep: "dueMessages", ...result }));
};
