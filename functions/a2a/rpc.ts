import { handleRpc } from "#core/agent/rpc";
import { endpoint } from "#core/http/endpoint";
import { agentRpc } from "#core/http/operations/a2a";

export const handler = endpoint(agentRpc, ({ actor, event, headers }) =>
  handleRpc(actor, { body: event.body, isBase64Encoded: event.isBase64Encoded, headers }),
);
