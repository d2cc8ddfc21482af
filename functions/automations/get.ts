import * as Automations from "#core/automations/automations";
import { endpoint } from "#core/http/endpoint";
import { getAutomation } from "#core/http/operations/automations";

export const handler = endpoint(getAutomation, ({ actor, params }) => Automations.fromId(actor, params.id));
