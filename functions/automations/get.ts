import { Automations } from "#core/automations/index";
import { endpoint } from "#core/http/endpoint";
import { getAutomation } from "#core/http/operations/automations";

export const handler = endpoint(getAutomation, ({ actor, params }) => Automations.fromId(actor, params.id));
