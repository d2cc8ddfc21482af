/** One delivery attempt: the signed POST to the integrator's endpoint, its outcome, and the attempt log. */
import type { DeliverMessage } from "#core/webhooks/queue";
import {
  type Trigger,
  retentionSeconds,
  type AttemptErrorKind,
  type WebhookAttempt,
} from "#core/webhooks/delivery-log";
import { egressFetch, privateTargetCause } from "#core/automations/runs/egress";
import { table } from "#core/db/items";
import { entities, keys } from "#core/db/keys";
import { newId, nowIso } from "#core/shared/ids";
import { webhooksConfig } from "#core/webhooks/config";
import { type StoredEndpoint } from "#core/webhooks/endpoints";
import { signatureHeader } from "#core/webhooks/signing";

export interface SendOutcome {
  succeeded: boolean;
  httpStatus: number | null;
  latencyMs: number | null;
  responseBody: string | null;
  errorKind: AttemptErrorKind | null;
  errorMessage: string | null;
}

/** POSTs the payload signed per Standard Webhooks, through the SSRF-pinned egress; never follows redirects. */
export async function send(endpoint: StoredEndpoint, messageId: string, payload: string): Promise<SendOutcome> {
  const timestamp = Math.floor(Date.now() / 1000);
  const secrets = [endpoint.secret];
  if (
    endpoint.previousSecret &&
    endpoint.previousSecretExpiresAt &&
    Date.parse(endpoint.previousSecretExpiresAt) > Date.now()
  )
    secrets.push(endpoint.previousSecret);
  const started = performance.now();
  try {
    const response = await egressFetch(
      endpoint.url,
      {
        method: "POST",
        redirect: "manual",
        signal: AbortSignal.timeout(webhooksConfig.attemptTimeoutMs),
        headers: {
          "content-type": "application/json",
          "user-agent": "LeadMessagingAPI-Webhooks/1.0",
          "webhook-id": messageId,
          "webhook-timestamp": String(timestamp),
          "webhook-signature": signatureHeader(secrets, messageId, timestamp, payload),
        },
        body: payload,
      },
      webhooksConfig.allowPrivateTargets,
    );
    const responseBody = await readCapped(response.body, webhooksConfig.responseBodyCap);
    const latencyMs = Math.round(performance.now() - started);
    const succeeded = response.status >= 200 && response.status < 300;
    return {
      succeeded,
      httpStatus: response.status,
      latencyMs,
      responseBody,
      errorKind: succeeded ? null : "HttpStatus",
      errorMessage: succeeded ? null : `The receiver answered ${response.status}.`,
    };
  } catch (error) {
    const latencyMs = Math.round(performance.now() - started);
    const blocked = privateTargetCause(error);
    const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
    const errorKind: AttemptErrorKind = blocked ? "PrivateTarget" : timedOut ? "Timeout" : "ConnectionFailed";
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
    const errorMessage = blocked
      ? blocked.message
      : timedOut
        ? `No answer within ${webhooksConfig.attemptTimeoutMs} ms.`
        : `${error instanceof Error ? error.message : String(error)}${cause}`;
    return {
      succeeded: false,
      httpStatus: null,
      latencyMs,
      responseBody: null,
      errorKind,
      errorMessage: errorMessage.slice(0, 500),
    };
  }
}

/** Reads at most `cap` bytes of a body, then stops reading (a huge or endless answer never holds the worker). */
export async function readCapped(body: ReadableStream<Uint8Array> | null, cap: number): Promise<string | null> {
  if (!body) return null;
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < cap) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const text = Buffer.concat(chunks).subarray(0, cap).toString("utf8");
  return text === "" ? null : text;
}

export async function logAttempt(
  organizationId: string,
  message: DeliverMessage,
  attempt: Partial<SendOutcome> & {
    eventType: string;
    trigger: Trigger;
    succeeded: boolean;
    nextAttemptAt?: string | null;
  },
): Promise<void> {
  const id = newId();
  const entry: WebhookAttempt = {
    id,
    endpointId: message.endpointId,
    messageId: message.messageId,
    attempt: message.attempt,
    attemptedAt: nowIso(),
    httpStatus: null,
    latencyMs: null,
    responseBody: null,
    errorKind: null,
    errorMessage: null,
    nextAttemptAt: null,
    ...attempt,
  };
  await table.put({
    Item: {
      ...keys.webhookAttempt(organizationId, message.endpointId, id),
      entity: entities.webhookAttempt,
      organizationId,
      ...Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== null)),
      expiresAt: Math.floor(Date.now() / 1000) + retentionSeconds,
    },
  });
}
