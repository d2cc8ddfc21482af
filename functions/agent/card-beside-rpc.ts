import { publicEndpoint } from "#core/http/public-endpoint";
import { getAgentCardBesideRpc } from "#core/http/operations/platform";
import { agentCardAnswer } from "#functions/agent/card";

export const handler = publicEndpoint(getAgentCardBesideRpc, async ({ headers }) => agentCardAnswer(headers));
