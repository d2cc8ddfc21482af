import type { AutomationEventType } from "#core/automations/runs/model";
import type { BillingEventType } from "#core/billing/wallet-events";
import type { CallEventType } from "#core/calls/events";
import type { CarrierRegistrationEventType } from "#core/carrier-registration/schemas";
import type { LeadEventType } from "#core/leads/processing";
import type { LeadAssignmentEventType } from "#core/leads/assignment";
import type { LeadConsentEventType } from "#core/leads/reverify";
import type { MessagingEventType } from "#core/messaging/timeline";
import type { WebhookEndpointEventType } from "#core/webhooks/endpoints";

/**
 * Every event type the service records: the union of each domain's own (each
 * declared beside the code that records it). Producers, the analytics counting
 * (`effectOf`) and the webhook catalogue are checked against it, so a new event
 * type is a compile-time decision and a misspelt one is a type error. Type-only
 * imports: core/events depends on no domain at run time.
 */
export type EventType =
  | LeadEventType
  | LeadAssignmentEventType
  | LeadConsentEventType
  | MessagingEventType
  | CallEventType
  | CarrierRegistrationEventType
  | AutomationEventType
  | BillingEventType
  | WebhookEndpointEventType;
