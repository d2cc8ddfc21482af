import * as Automations from "#core/automations/automations";
import { endpoint } from "#core/http/endpoint";
import { listAutomations } from "#core/http/operations/automations";

export const handler = endpoint(listAutomations, ({ actor, body }) => Automations.list(actor, body));
