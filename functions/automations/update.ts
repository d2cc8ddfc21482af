import { Automations } from "#core/automations/index";
import { endpoint } from "#core/http/endpoint";
import { updateAutomation } from "#core/http/operations/automations";

export const handler = endpoint(updateAutomation, ({ actor, params, body }) =>
  Automations.update(actor, params.id, body),
);
