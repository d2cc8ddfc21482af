import * as Automations from "#core/automations/automations";
import { endpoint } from "#core/http/endpoint";
import { createAutomation } from "#core/http/operations/automations";

export const handler = endpoint(createAutomation, async ({ actor, body, resourceId }) =>
  Automations.create(actor, body, { automationId: await resourceId() }),
);
