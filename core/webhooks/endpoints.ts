import { isIP } from "node:net";
import * as v from "valibot";
import type { Actor } from "#core/auth/actor";
import { isPublicAddress } from "#core/automations/runs/public-address";
import * as Audit from "#core/audit/index";
import { WebhookEndpointEntity } from "#core/db/entities/webhooks";
import { computed, where } from "#core/db/expression";
import { conditionally, table } from "#core/db/items";
import { keys } from "#core/db/keys";
import { keyOrder, listPage, type ListResource, listQuerySchema, prefixQuery } from "#core/db/list";
import { ConflictError, NotFoundError, ValidationError } from "#core/errors";
import { recordEvent } from "#core/events/index";
import { newId, nowIso } from "#core/shared/ids";
import { type Page, type PagingQuery } from "#core/shared/paging";
import { maxChars, toFieldErrors } from "#core/shared/validation";
import { WebhookEventTypeSchema, type WebhookEventType } from "#core/webhooks/catalogue";
import { webhooksConfig } from "#core/webhooks/config";
import { newSigningSecret } from "#core/webhooks/signing";

/** Body of `POST /webhook-endpoints` and `PUT /webhook-endpoints/{id}` (PUT replaces every writable field). */
/** Event types the webhook module records. */
export type WebhookEndpointEventType = "WebhookEndpointDisabled";

export const WebhookEndpointRequestSchema = v.strictObject({
  url: v.pipe(
    v.string(),
    v.trim(),
    v.minLength(1),
    v.maxLength(2048),
    v.url("Must be an absolute URL such as https://example.com/webhooks."),
  ),
  description: v.nullish(v.pipe(v.string(), v.trim(), maxChars(500))),
  /** `"all"` (also future types) or the types to receive. */
  enabledEventTypes: v.optional(
    v.union([v.literal("all"), v.pipe(v.array(WebhookEventTypeSchema), v.minLength(1), v.maxLength(100))]),
    "all",
  ),
  /** Setting `true` on an automatically disabled endpoint re-enables it and clears its failure streak. */
  enabled: v.optional(v.boolean(), true),
});
export type WebhookEndpointRequest = v.InferInput<typeof WebhookEndpointRequestSchema>;

/** How deliveries to the endpoint have gone lately. */
export const WebhookEndpointHealthSchema = v.object({
  lastSuccessAt: v.nullable(v.string()),
  lastFailureAt: v.nullable(v.string()),
  consecutiveFailures: v.number(),
  /** First failure since the last success; the endpoint is disabled once this is older than the stage's span. */
  failingSince: v.nullable(v.string()),
  disabledAt: v.nullable(v.string()),
  /** `Gone` (the receiver answered 410), `FailingTooLong`, or `Manual` (disabled through PUT). */
  disabledReason: v.nullable(v.string()),
});

/** A webhook endpoint as every read answers it (never its secret). */
export const WebhookEndpointSchema = v.object({
  id: v.string(),
  url: v.string(),
  description: v.nullable(v.string()),
  enabledEventTypes: v.union([v.literal("all"), v.array(v.string())]),
  enabled: v.boolean(),
  /** The secret's first characters, to tell secrets apart. */
  secretPreview: v.string(),
  secretRotatedAt: v.nullable(v.string()),
  /** Until then deliveries are also signed with the previous secret. */
  previousSecretExpiresAt: v.nullable(v.string()),
  health: WebhookEndpointHealthSchema,
  createdAt: v.string(),
  modifiedAt: v.nullable(v.string()),
});
export type WebhookEndpoint = v.InferOutput<typeof WebhookEndpointSchema>;

/** Answer of create and rotate: the signing secret, shown only this once. */
export const WebhookEndpointWithSecretSchema = v.object({ endpoint: WebhookEndpointSchema, secret: v.string() });
export type WebhookEndpointWithSecret = v.InferOutput<typeof WebhookEndpointWithSecretSchema>;

/** The stored endpoint with what deliveries need (its secrets). */
export type StoredEndpoint = WebhookEndpoint & { organizationId: string; secret: string; previousSecret?: string };

const listResource: ListResource<WebhookEndpoint> = {
  name: "webhook endpoints",
  fields: {
    url: { get: (e) => e.url, kind: "string", filter: true, sort: true, search: true },
    description: { get: (e) => e.description, kind: "string", search: true },
    enabled: { get: (e) => e.enabled, kind: "boolean", filter: true },
    disabledReason: { get: (e) => e.health.disabledReason, kind: "string", filter: true },
    createdAt: { get: (e) => e.createdAt, kind: "date", sort: true, range: true },
    modifiedAt: { get: (e) => e.modifiedAt, kind: "date", sort: true, range: true },
  },
  defaultOrder: [{ field: "createdAt", direction: "desc" }],
  idOf: (e) => e.id,
  fromItem: toEndpoint,
  candidates: (organizationId) => prefixQuery(keys.webhookEndpointPrefix(organizationId)),
  orders: { createdAt: keyOrder(keys.webhookEndpointPrefix) },
};

export const ListWebhookEndpointsSchema = listQuerySchema(listResource);

/** How long a warm fan-out instance uses its read of an organization's endpoints. */
const fanOutCacheMs = 1_000;
/**
 * How long a change of the endpoint set waits before it answers: the cache's life plus a margin for timers firing
 * late (both are durations, each on its own instance's clock, so no clocks are compared).
 */
export const endpointChangeSettleMs = fanOutCacheMs + 250;
const fanOutCache = new Map<string, { readAt: number; endpoints: StoredEndpoint[] }>();

/** Answers a change of the endpoint set once every fan-out instance's earlier read of it has expired (`forFanOut`). */
async function settled<T>(result: T): Promise<T> {
  await new Promise((resolve) => setTimeout(resolve, endpointChangeSettleMs));
  return result;
}

/** Webhook endpoints of an organization: where events are pushed, with their signing secrets and delivery health. */

/**
 * `endpointId`: the id fixed by the request's Idempotency-Key. A retry after the first request died finds the
 * endpoint it stored and answers it with its secret (never shown yet: the first answer never arrived).
 */
export async function create(
  actor: Actor,
  input: WebhookEndpointRequest,
  options: { endpointId?: string } = {},
): Promise<WebhookEndpointWithSecret> {
  const request = parseRequest(input);
  const created = await Audit.commit(actor, async (tx) => {
    if (options.endpointId) {
      const stored = await readEndpoint(actor.organizationId, options.endpointId);
      if (stored) return { result: { endpoint: toEndpoint(stored), secret: String(stored.secret) } };
    }
    if ((await storedEndpoints(actor.organizationId)).length >= webhooksConfig.maxEndpoints) {
      throw new ConflictError(
        `An organization may have at most ${webhooksConfig.maxEndpoints} webhook endpoints; delete one first.`,
      );
    }
    const secret = newSigningSecret();
    const endpoint: WebhookEndpoint = {
      id: options.endpointId ?? newId(),
      ...request,
      secretPreview: preview(secret),
      secretRotatedAt: null,
      previousSecretExpiresAt: null,
      health: {
        lastSuccessAt: null,
        lastFailureAt: null,
        consecutiveFailures: 0,
        failingSince: null,
        disabledAt: null,
        disabledReason: null,
      },
      createdAt: nowIso(),
      modifiedAt: null,
    };
    // Health fields are absent until they happen (computed.ifAbsent sets failingSince on the first failure).
    tx.put(
      "change",
      WebhookEndpointEntity.create({
        organizationId: actor.organizationId,
        ...endpoint,
        health: { consecutiveFailures: 0 },
        secret,
      }),
    );
    return {
      change: { ...audit("created", endpoint.id), after: auditView(endpoint, secret) },
      result: { endpoint, secret },
    };
  });
  return settled(created);
}

export async function fromId(actor: Actor, endpointId: string): Promise<WebhookEndpoint> {
  const item = await stored(actor.organizationId, endpointId);
  if (!item) throw new NotFoundError("Webhook endpoint", endpointId);
  return toEndpoint(item);
}

export async function list(actor: Actor, query: PagingQuery): Promise<Page<WebhookEndpoint>> {
  return listPage(listResource, actor.organizationId, query);
}

/** Replaces the writable fields. Enabling a disabled endpoint clears its failure streak; disabling says `Manual`. */
export async function update(
  actor: Actor,
  endpointId: string,
  input: WebhookEndpointRequest,
): Promise<WebhookEndpoint> {
  const request = parseRequest(input);
  const updated = await Audit.commit(actor, async (tx) => {
    const stored = await existingEndpoint(actor.organizationId, endpointId);
    const before = toEndpoint(stored);
    const now = nowIso();
    const after: WebhookEndpoint = {
      ...before,
      ...request,
      modifiedAt: now,
      health: request.enabled
        ? { ...before.health, consecutiveFailures: 0, failingSince: null, disabledAt: null, disabledReason: null }
        : { ...before.health, disabledAt: before.health.disabledAt ?? now, disabledReason: "Manual" },
    };
    const health = request.enabled
      ? { "health.consecutiveFailures": 0 }
      : { "health.disabledAt": computed.ifAbsent(now), "health.disabledReason": "Manual" };
    tx.update(
      "change",
      WebhookEndpointEntity.update(
        { organizationId: actor.organizationId, id: endpointId },
        { ...request, modifiedAt: now, ...health },
        {
          condition: Audit.unchangedSince(stored),
          ...(request.enabled ? { remove: ["health.failingSince", "health.disabledAt", "health.disabledReason"] } : {}),
        },
      ),
    );
    return { change: { ...audit("updated", endpointId), before, after }, result: after };
  });
  return settled(updated);
}

/** Deletes the endpoint; deliveries in flight to it end without another attempt. */
export async function remove(actor: Actor, endpointId: string): Promise<void> {
  await Audit.commit(actor, async (tx) => {
    const stored = await existingEndpoint(actor.organizationId, endpointId);
    tx.delete(
      "change",
      WebhookEndpointEntity.remove(
        { organizationId: actor.organizationId, id: endpointId },
        { condition: Audit.unchangedSince(stored) },
      ),
    );
    return { change: { ...audit("deleted", endpointId), before: toEndpoint(stored) }, result: undefined };
  });
  await settled(undefined);
}

/** A new signing secret, used from now on; the previous one also signs deliveries for the overlap (both signatures sent). */
export async function rotateSecret(actor: Actor, endpointId: string): Promise<WebhookEndpointWithSecret> {
  return Audit.commit(actor, async (tx) => {
    const stored = await existingEndpoint(actor.organizationId, endpointId);
    const secret = newSigningSecret();
    const now = new Date();
    const rotation = {
      secretPreview: preview(secret),
      secretRotatedAt: now.toISOString(),
      previousSecretExpiresAt: new Date(now.getTime() + webhooksConfig.previousSecretOverlapMs).toISOString(),
      modifiedAt: now.toISOString(),
    };
    tx.update(
      "change",
      WebhookEndpointEntity.update(
        { organizationId: actor.organizationId, id: endpointId },
        { previousSecret: stored.secret, secret, ...rotation },
        { condition: Audit.unchangedSince(stored) },
      ),
    );
    const before = toEndpoint(stored);
    const endpoint = { ...before, ...rotation };
    return {
      change: { ...audit("secretRotated", endpointId), before, after: auditView(endpoint, secret) },
      result: { endpoint, secret },
    };
  });
}

/** The stored endpoint (with secrets), for deliveries: read consistently, so a disable or delete that answered stops them. */
export async function stored(organizationId: string, endpointId: string): Promise<StoredEndpoint | undefined> {
  const item = await WebhookEndpointEntity.get({ organizationId, id: endpointId }, { consistent: true });
  return item ? toStored(item) : undefined;
}

/** Every endpoint of the organization (at most maxEndpoints). */
export async function all(organizationId: string): Promise<StoredEndpoint[]> {
  return (await storedEndpoints(organizationId)).map(toStored);
}

/**
 * The organization's endpoints for the fan-out, read at most once per `fanOutCacheMs` by a warm instance (issue 27:
 * a Query per stream batch, most often of an organization with none). Correct because every change of the set
 * (create, update, delete) answers only `endpointChangeSettleMs` after its commit: an event recorded after that
 * answer reaches the fan-out after it, when any list read before the change has expired, so the event is fanned
 * out from a read that sees the change. (Deliveries read their endpoint again before sending: a delivery made
 * from the list just before a disable or delete is not sent.)
 */
export async function forFanOut(organizationId: string): Promise<StoredEndpoint[]> {
  const now = Date.now();
  const cached = fanOutCache.get(organizationId);
  if (cached && now - cached.readAt < fanOutCacheMs) return cached.endpoints;
  const endpoints = await all(organizationId);
  // The time the read was asked for, not answered: the read saw every change committed before it.
  fanOutCache.set(organizationId, { readAt: now, endpoints });
  // Expired reads go once there are many (an instance serving many organizations keeps only the last second's).
  if (fanOutCache.size > 1000)
    for (const [key, entry] of fanOutCache) if (now - entry.readAt >= fanOutCacheMs) fanOutCache.delete(key);
  return endpoints;
}

/** Whether the endpoint takes this webhook type. */
export function accepts(endpoint: WebhookEndpoint, type: WebhookEventType): boolean {
  return endpoint.enabled && (endpoint.enabledEventTypes === "all" || endpoint.enabledEventTypes.includes(type));
}

/**
 * A delivery succeeded: the failure streak ends. A healthy endpoint's `lastSuccessAt` is refreshed at most once a
 * minute, so a busy endpoint's item is not rewritten by every delivery.
 */
export async function recordSuccess(organizationId: string, endpoint: WebhookEndpoint, at: string): Promise<void> {
  const { consecutiveFailures, failingSince, lastSuccessAt } = endpoint.health;
  if (
    consecutiveFailures === 0 &&
    !failingSince &&
    lastSuccessAt &&
    Date.parse(at) - Date.parse(lastSuccessAt) < 60_000
  )
    return;
  await updateIfExists(organizationId, endpoint.id, { "health.lastSuccessAt": at, "health.consecutiveFailures": 0 }, [
    "health.failingSince",
  ]);
}

/**
 * A delivery failed. A `410 Gone` disables the endpoint at once; otherwise it is disabled once it has been failing
 * (no success) for longer than the stage's span. Disabling records a `WebhookEndpointDisabled` event. Answers
 * whether the endpoint is (now) disabled.
 */
export async function recordFailure(
  organizationId: string,
  endpointId: string,
  at: string,
  gone: boolean,
): Promise<boolean> {
  const after = await updateIfExists(organizationId, endpointId, {
    "health.lastFailureAt": at,
    "health.failingSince": computed.ifAbsent(at),
    "health.consecutiveFailures": computed.increment(),
  });
  if (!after) return true;
  if (!after.enabled) return true;
  const failingSince = (after.health as { failingSince?: string | null }).failingSince ?? at;
  const tooLong = Date.parse(at) - Date.parse(failingSince) >= webhooksConfig.disableAfterMs;
  if (!gone && !tooLong) return false;
  await disable(organizationId, endpointId, gone ? "Gone" : "FailingTooLong", at);
  return true;
}

/** Disabled endpoints of the organization (analytics needsAttention). */
export async function disabled(organizationId: string): Promise<WebhookEndpoint[]> {
  return (await storedEndpoints(organizationId)).map(toEndpoint).filter((endpoint) => !endpoint.enabled);
}

async function disable(
  organizationId: string,
  endpointId: string,
  reason: "Gone" | "FailingTooLong",
  at: string,
): Promise<void> {
  const disabled = await conditionally(
    table.update({
      ...WebhookEndpointEntity.update(
        { organizationId, id: endpointId },
        { enabled: false, "health.disabledAt": at, "health.disabledReason": reason, modifiedAt: at },
        { condition: where.all(where.stored(), where.equals("enabled", true)) },
      ),
      ReturnValues: "ALL_NEW",
    }),
  );
  // Undefined: another failure disabled it first (and recorded the event).
  if (!disabled) return;
  const endpoint = toEndpoint(disabled.Attributes!);
  await recordEvent(organizationId, {
    eventType: "WebhookEndpointDisabled",
    eventCategory: "Webhook",
    timelineCategory: "Webhook",
    description:
      reason === "Gone"
        ? `Webhook endpoint ${endpoint.url} answered 410 Gone and was disabled.`
        : `Webhook endpoint ${endpoint.url} failed for too long and was disabled; re-enable it with PUT once the receiver works.`,
    relatedEntityType: "WebhookEndpoint",
    relatedEntityId: endpointId,
    status: "Disabled",
    statusReason: reason,
    createdBy: "system",
    actorDisplayName: "System",
  });
}

async function updateIfExists(
  organizationId: string,
  endpointId: string,
  changes: Record<string, unknown>,
  remove?: readonly string[],
) {
  const updated = await conditionally(
    table.update({
      ...WebhookEndpointEntity.update({ organizationId, id: endpointId }, changes, {
        condition: where.stored(),
        ...(remove ? { remove } : {}),
      }),
      ReturnValues: "ALL_NEW",
    }),
  );
  return updated?.Attributes;
}

/**
 * Every endpoint of the organization, read consistently: the fan-out's cached list (`forFanOut`) is sound only if a
 * read sees every change committed before it (an eventually consistent read may not, for a while).
 */
async function storedEndpoints(organizationId: string): Promise<Record<string, unknown>[]> {
  const { Items = [] } = await table.query({
    ...prefixQuery(keys.webhookEndpointPrefix(organizationId)),
    ConsistentRead: true,
  });
  return Items;
}

/** The stored endpoint, read consistently: what an audited change starts from. */
function readEndpoint(organizationId: string, endpointId: string) {
  return WebhookEndpointEntity.get({ organizationId, id: endpointId }, { consistent: true });
}

async function existingEndpoint(organizationId: string, endpointId: string): Promise<Record<string, unknown>> {
  const stored = await readEndpoint(organizationId, endpointId);
  if (!stored) throw new NotFoundError("Webhook endpoint", endpointId);
  return stored;
}

/** An audit entry's action and resource for the endpoint. */
function audit(verb: string, endpointId: string) {
  return { action: `webhookEndpoint.${verb}`, resourceType: "WebhookEndpoint", resourceId: endpointId };
}

/** The endpoint as its audit entry shows it: with the secret (recorded as changed, never its value). */
function auditView(endpoint: WebhookEndpoint, secret: string): Record<string, unknown> {
  return { ...endpoint, secret };
}

function parseRequest(input: WebhookEndpointRequest) {
  const parsed = v.safeParse(WebhookEndpointRequestSchema, input);
  if (!parsed.success)
    throw new ValidationError(
      "The webhook endpoint is not valid; see errors for each field.",
      toFieldErrors(parsed.issues),
    );
  const request = parsed.output;
  const url = new URL(request.url);
  const refuse = (detail: string) =>
    new ValidationError("The webhook URL is not allowed.", [{ pointer: "/url", detail }]);
  if (url.protocol !== "https:" && url.protocol !== "http:") throw refuse("Must be an https:// URL.");
  if (url.protocol === "http:" && webhooksConfig.requireHttps)
    throw refuse("Must be an https:// URL: this stage requires TLS for webhook receivers.");
  if (url.username || url.password)
    throw refuse("Must not carry credentials; authenticate deliveries by their signature.");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!webhooksConfig.allowPrivateTargets && (host === "localhost" || (isIP(host) && !isPublicAddress(host)))) {
    throw refuse("Must point at a public receiver, not a private or loopback address.");
  }
  return {
    url: request.url,
    description: request.description ?? null,
    enabledEventTypes: request.enabledEventTypes === "all" ? ("all" as const) : [...new Set(request.enabledEventTypes)],
    enabled: request.enabled,
  };
}

function preview(secret: string): string {
  return `${secret.slice(0, 10)}…`;
}

function toEndpoint(item: Record<string, unknown>): WebhookEndpoint {
  const health = (item.health ?? {}) as Record<string, unknown>;
  return {
    id: String(item.id),
    url: String(item.url),
    description: (item.description as string | null) ?? null,
    enabledEventTypes: (item.enabledEventTypes as WebhookEndpoint["enabledEventTypes"]) ?? "all",
    enabled: item.enabled === true,
    secretPreview: String(item.secretPreview ?? ""),
    secretRotatedAt: (item.secretRotatedAt as string | null) ?? null,
    previousSecretExpiresAt: (item.previousSecretExpiresAt as string | null) ?? null,
    health: {
      lastSuccessAt: (health.lastSuccessAt as string | null) ?? null,
      lastFailureAt: (health.lastFailureAt as string | null) ?? null,
      consecutiveFailures: Number(health.consecutiveFailures ?? 0),
      failingSince: (health.failingSince as string | null) ?? null,
      disabledAt: (health.disabledAt as string | null) ?? null,
      disabledReason: (health.disabledReason as string | null) ?? null,
    },
    createdAt: String(item.createdAt),
    modifiedAt: (item.modifiedAt as string | null) ?? null,
  };
}

function toStored(item: Record<string, unknown>): StoredEndpoint {
  return {
    ...toEndpoint(item),
    organizationId: String(item.organizationId),
    secret: String(item.secret),
    ...(typeof item.previousSecret === "string" ? { previousSecret: item.previousSecret } : {}),
  };
}
