/**
 * HttpRequest: a call to the integrator's URL through the egress guard (no private or loopback address, checked
 * again at connect time), signed when the action has a secret, retried with a backoff on 5xx, 408, 429 and network
 * failures. The guard (ipaddr.js, the pinned agents) is this module's, loaded with the first HttpRequest step.
 */
import {
  jsonStringEncode,
  webhookSignature,
  webhookSignatureHeader,
  webhookTimestampHeader,
} from "#core/automations/definition";
import type { ActionContext, ActionOutcome } from "#core/automations/runs/actions";
import { render } from "#core/automations/runs/actions/common";
import { egressFetch, privateTargetCause, runsConfig, targetRefusal } from "#core/automations/runs/egress";

interface HttpSettings {
  url: string;
  method: string;
  headers?: Record<string, string>;
  body?: string;
  secret?: string;
  timeoutMs: number;
  maxRetries: number;
}

type AttemptRecord = { attempt: number; at: string; status: number | null; error: string | null; durationMs: number };

export async function httpRequest(context: ActionContext, settings: HttpSettings): Promise<ActionOutcome> {
  const { run, step } = context;
  const attempt = step.attempts;
  const previous = (step.output?.attempts as AttemptRecord[] | undefined) ?? [];
  const body =
    settings.method === "GET"
      ? undefined
      : settings.body !== undefined
        ? await render(context, settings.body, { encode: jsonStringEncode })
        : JSON.stringify({
            automationId: run.automationId,
            runId: run.id,
            stepId: step.nodeId,
            leadId: run.leadId,
            trigger: { type: run.trigger.type, eventId: run.trigger.eventId },
          });
  const input = { url: settings.url, method: settings.method, ...(body !== undefined ? { body } : {}) };
  const refusal = await targetRefusal(settings.url);
  if (refusal) return { kind: "failed", error: refusal, input };
  const timestamp = Math.floor(context.now / 1000);
  const headers: Record<string, string> = {
    "user-agent": "lead-messaging-automations/1",
    "idempotency-key": `${run.id}:${step.seq}`,
    ...(body !== undefined ? { "content-type": "application/json" } : {}),
    ...settings.headers,
    ...(settings.secret
      ? {
          [webhookTimestampHeader]: String(timestamp),
          [webhookSignatureHeader]: webhookSignature(settings.secret, timestamp, body ?? ""),
        }
      : {}),
  };
  const started = Date.now();
  let status: number | null = null;
  let error: string | null = null;
  let responseBody = "";
  try {
    const response = await egressFetch(settings.url, {
      method: settings.method,
      headers,
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(settings.timeoutMs),
    });
    status = response.status;
    responseBody = (await response.text()).slice(0, 1000);
    if (status >= 300) error = `The receiver answered ${status}.`;
  } catch (cause) {
    // The connection itself refused a private address (the host resolved differently than for the check above).
    const refused = privateTargetCause(cause);
    if (refused) return { kind: "failed", error: refused.message, input };
    error =
      cause instanceof Error && cause.name === "TimeoutError"
        ? `No answer within ${settings.timeoutMs} ms.`
        : `Request failed: ${String(cause instanceof Error ? cause.message : cause)}`;
  }
  const attempts = [
    ...previous,
    { attempt: attempt + 1, at: new Date(started).toISOString(), status, error, durationMs: Date.now() - started },
  ];
  const output = { status, attempts, ...(responseBody ? { responseBody } : {}) };
  if (!error) return { kind: "succeeded", output, input };
  const retriable = status === null || status >= 500 || status === 429 || status === 408;
  if (retriable && attempt < settings.maxRetries) {
    const base = runsConfig.retryBaseMs * 2 ** attempt;
    return { kind: "retry", delayMs: Math.min(300_000, base + Math.random() * base * 0.2), error, output, input };
  }
  return {
    kind: "failed",
    error: attempt > 0 ? `${error} Gave up after ${attempt + 1} attempts.` : error,
    output,
    input,
  };
}
