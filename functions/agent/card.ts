import { agentCard, cardProtocolOf } from "#core/agent/card";
import { publicEndpoint } from "#core/http/public-endpoint";
import { getAgentCard } from "#core/http/operations/platform";
import { HttpResponse } from "#core/http/response";

/** The card in the shape the caller's `A2A-Version` asks for; caches must keep the shapes apart. */
export function agentCardAnswer(headers: Record<string, string | undefined>): HttpResponse {
  return new HttpResponse(200, agentCard(cardProtocolOf(headers["a2a-version"])), { vary: "A2A-Version" });
}

export const handler = publicEndpoint(getAgentCard, async ({ headers }) => agentCardAnswer(headers));
