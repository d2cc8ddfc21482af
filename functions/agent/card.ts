import { agentCard } from "#core/agent/card";
import { endpoint } from "#core/http/endpoint";
import { getAgentCard } from "#core/http/operations/platform";

export const handler = endpoint(getAgentCard, async () => agentCard());
