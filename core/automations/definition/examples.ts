import type { AutomationRequestInput } from "../definition.ts";

/**
 * "Speed to lead": text a new lead at once, wait 10 minutes, and follow up only if they have not replied.
 * Used as the OpenAPI example of the automation request and in docs/automations.md.
 */
export const speedToLeadExample = {
  name: "Speed to lead",
  description: "Text every new lead within seconds, then follow up once if they have not replied after 10 minutes.",
  enabled: true,
  scope: "Organization",
  visibility: "Organization",
  triggers: [
    { id: "lead-created", type: "LeadCreated", displayName: "New lead (any source)", isEnabled: true, settings: {} },
  ],
  conditionGroups: [
    {
      id: "can-text",
      mode: "all",
      conditions: [
        {
          id: "has-phone",
          type: "LeadField",
          operator: "Exists",
          isEnabled: true,
          settings: { field: "contact.phone" },
        },
        {
          id: "not-opted-out",
          type: "ConsentStatus",
          operator: "NotEquals",
          isEnabled: true,
          settings: { value: "OptedOut" },
        },
      ],
    },
    {
      id: "no-reply-yet",
      mode: "all",
      conditions: [
        { id: "has-not-replied", type: "HasReplied", operator: "Equals", isEnabled: true, settings: { value: false } },
      ],
    },
  ],
  actions: [
    {
      id: "first-text",
      type: "SendSms",
      order: 0,
      isEnabled: true,
      settings: {
        body: "Hi {{contact.firstName|there}}, thanks for your interest in {{metadata.product}}! When is a good time to talk?",
        fallback: "our plans",
      },
    },
    { id: "wait-10-minutes", type: "Wait", order: 1, isEnabled: true, settings: { durationSeconds: 600 } },
    {
      id: "follow-up-text",
      type: "SendSms",
      order: 2,
      isEnabled: true,
      settings: { body: "Just checking in, {{contact.firstName|there}}. Reply here and we will call you right away." },
    },
  ],
  connections: [
    { id: "c1", sourceNodeId: "lead-created", targetNodeId: "can-text", weight: 1 },
    { id: "c2", sourceNodeId: "can-text", targetNodeId: "first-text", weight: 1 },
    { id: "c3", sourceNodeId: "first-text", targetNodeId: "wait-10-minutes", weight: 1 },
    { id: "c4", sourceNodeId: "wait-10-minutes", targetNodeId: "no-reply-yet", weight: 1 },
    { id: "c5", sourceNodeId: "no-reply-yet", targetNodeId: "follow-up-text", weight: 1 },
  ],
} satisfies AutomationRequestInput;

/** Notify a receiver (signed webhook) when a message to a lead fails, then stop. */
export const webhookOnFailureExample = {
  name: "Report failed messages",
  enabled: true,
  triggers: [{ id: "message-failed", type: "MessageFailed", settings: { statuses: ["Failed", "Undeliverable"] } }],
  actions: [
    {
      id: "notify-crm",
      type: "HttpRequest",
      settings: {
        url: "https://crm.example.com/hooks/message-failed",
        method: "POST",
        headers: { "X-Source": "lead-messaging" },
        body: '{"leadId":"{{lead.id}}","email":"{{contact.email}}"}',
        secret: "whsec_0123456789abcdef",
        timeoutMs: 5000,
        maxRetries: 3,
      },
    },
    { id: "done", type: "Stop" },
  ],
  connections: [
    { id: "c1", sourceNodeId: "message-failed", targetNodeId: "notify-crm" },
    { id: "c2", sourceNodeId: "notify-crm", targetNodeId: "done" },
  ],
} satisfies AutomationRequestInput;
