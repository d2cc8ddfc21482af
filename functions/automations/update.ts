import * as Automations from "#core/automations/automations";
import { endpoint } from "#core/http/endpoint";
import { updateAutomation } from "#core/http/operations/automations";

export const handler = endpoint(updateAutomation, ({ actor, params, body }) =>
  Automations.update(actor, params.id, body),
);
