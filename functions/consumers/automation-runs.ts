// The declarations of the trigger messages this queue carries (their producers' domains), checked by subscribe.
import "#core/calls/queue";
import "#core/leads/queue";
import "#core/messaging/queue";
import { automationRunHandlers } from "#core/automations/runs/handlers";
import { subscribe } from "#core/queue/subscribe";

/** The automation-runs queue: trigger events fan out into runs; each run step is one message (core/automations/runs). */
export const handler = subscribe("automationRuns", automationRunHandlers);
