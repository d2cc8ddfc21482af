import { endpoint } from "#core/http/endpoint";
import { getAgentCardBesideRpc } from "#core/http/operations/platform";
import { agentCardAnswer } from "#functions/agent/card";

export const handler = endpoint(getAgentCardBesideRpc, async ({ headers }) => agentCardAnswer(headers));
