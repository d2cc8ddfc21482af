import { org, type Key } from "#core/db/keys/shared";

/** Keys of the items core/webhooks owns (docs/data-model.md). */
export const webhooksKeys = {
  /** Webhook endpoints of the organization (core/webhooks); the item holds the signing secrets. */
  webhookEndpoint: (organizationId: string, endpointId: string): Key => ({
    pk: org(organizationId),
    sk: `WEBHOOKENDPOINT#${endpointId}`,
  }),
  webhookEndpointPrefix: (organizationId: string) => ({ pk: org(organizationId), skPrefix: "WEBHOOKENDPOINT#" }),
  /** One delivery of one webhook message (an event, or a test ping) to one endpoint; its id is the `webhook-id`. */
  webhookDelivery: (organizationId: string, endpointId: string, messageId: string): Key => ({
    pk: org(organizationId),
    sk: `WEBHOOKDELIVERY#${endpointId}#${messageId}`,
  }),
  /** The attempt log of one endpoint, newest first by ULID. */
  webhookAttempt: (organizationId: string, endpointId: string, attemptId: string): Key => ({
    pk: org(organizationId),
    sk: `WEBHOOKATTEMPT#${endpointId}#${attemptId}`,
  }),
  webhookAttemptPrefix: (organizationId: string, endpointId: string) => ({
    pk: org(organizationId),
    skPrefix: `WEBHOOKATTEMPT#${endpointId}#`,
  }),
  // The retry schedule's index entries of a delivery: core/db/entities/webhooks.ts.
};
