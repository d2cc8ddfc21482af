import { handleRpc, type JsonRpcEventStream, type JsonRpcResponse } from "#core/agent/rpc";
import { endpoint } from "#core/http/endpoint";
import { agentRpc } from "#core/http/operations/a2a";
import { HttpResponse } from "#core/http/response";

const isStream = (answer: JsonRpcResponse | JsonRpcEventStream): answer is JsonRpcEventStream => "stream" in answer;

/** Server-sent events as the A2A SDK writes them: one `data:` line per JSON-RPC response, `event: error` for a failure. */
function eventStream({ stream, failure }: JsonRpcEventStream): string {
  const events = stream.map((event) => `data: ${JSON.stringify(event)}\n\n`);
  if (failure) events.push(`event: error\ndata: ${JSON.stringify(failure)}\n\n`);
  return events.join("");
}

export const handler = endpoint(agentRpc, async ({ actor, event, headers }) => {
  const answer = await handleRpc(actor, { body: event.body, isBase64Encoded: event.isBase64Encoded, headers });
  if (!isStream(answer)) return answer;
  return HttpResponse.text(200, eventStream(answer), "text/event-stream");
});
