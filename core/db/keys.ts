/**
 * The single-table key layout (docs/data-model.md mirrors it). Each aggregate's
 * key builders live in core/db/keys/<aggregate>.ts, or beside its entities in
 * core/db/entities/<aggregate>.ts where they are a few lines (issue 26: a key
 * and the entity it locates read together), and only that aggregate builds
 * them (tests/unit/architecture.test.ts); this module joins them into the one
 * `keys` namespace and names the stored entities.
 *
 * Every tenant item's partition key begins with `ORG#<organizationId>`, and the
 * only way to build one is from an organization id, so an operation holding an
 * actor of organization A cannot form a key of organization B. The few keys that
 * are not tenant data (rate-limit windows for anonymous IPs, the operator's
 * organization index) say so where they are built.
 */
import { organizationsKeys } from "#core/db/entities/organizations";
import { automationsKeys } from "#core/db/keys/automations";
import { sourcesKeys } from "#core/db/entities/sources";
import { leadsKeys } from "#core/db/keys/leads";
import { suppressionsKeys } from "#core/db/entities/suppressions";
import { eventsKeys } from "#core/db/keys/events";
import { agentKeys } from "#core/db/entities/agent";
import { messagingKeys } from "#core/db/keys/messaging";
import { callsKeys } from "#core/db/keys/calls";
import { billingKeys } from "#core/db/keys/billing";
import { analyticsKeys } from "#core/db/keys/analytics";
import { rateLimitKeys } from "#core/db/entities/rate-limit";
import { webhooksKeys } from "#core/db/keys/webhooks";
import { idempotencyKeys } from "#core/db/entities/idempotency";
import { maintenanceKeys } from "#core/db/entities/maintenance";
import { usersKeys } from "#core/db/entities/users";
import { auditKeys } from "#core/db/keys/audit";
import { consentKeys } from "#core/db/entities/consent";
import { carrierRegistrationKeys } from "#core/db/keys/carrier-registration";
import { routingKeys } from "#core/db/keys/routing";

export {
  createdWithin,
  decimalSortText,
  type Key,
  type LeadClaim,
  type RateLimitPartition,
} from "#core/db/keys/shared";

export const keys = {
  ...organizationsKeys,
  ...automationsKeys,
  ...sourcesKeys,
  ...leadsKeys,
  ...suppressionsKeys,
  ...eventsKeys,
  ...agentKeys,
  ...messagingKeys,
  ...callsKeys,
  ...billingKeys,
  ...analyticsKeys,
  ...rateLimitKeys,
  ...webhooksKeys,
  ...idempotencyKeys,
  ...maintenanceKeys,
  ...usersKeys,
  ...auditKeys,
  ...consentKeys,
  ...carrierRegistrationKeys,
  ...routingKeys,
};

/** The entity names stored in the `entity` attribute of every item. */
export const entities = {
  organization: "Organization",
  apiKey: "ApiKey",
  automation: "Automation",
  automationVersion: "AutomationVersion",
  automationTrigger: "AutomationTrigger",
  automationRun: "AutomationRun",
  automationRunClaim: "AutomationRunClaim",
  rateLimitAllowance: "RateLimitAllowance",
  scheduleRun: "ScheduleRun",
  idempotency: "IdempotencyRecord",
  source: "Source",
  lead: "Lead",
  leadClaim: "LeadClaim",
  consentSettings: "ConsentSettings",
  routingSettings: "RoutingSettings",
  routingCounter: "RoutingCounter",
  routingDailyCount: "RoutingDailyCount",
  routingHourlyCount: "RoutingHourlyCount",
  routingLastAssigned: "RoutingLastAssigned",
  routingAway: "RoutingAway",
  routingOpenCount: "RoutingOpenCount",
  consentEvidence: "ConsentEvidence",
  contactAttempts: "ContactAttempts",
  suppression: "Suppression",
  event: "Event",
  phoneNumber: "PhoneNumber",
  phoneNumberLane: "PhoneNumberLane",
  numberRoute: "NumberRoute",
  conversation: "Conversation",
  conversationByPhone: "ConversationByPhone",
  cannedReply: "CannedReply",
  message: "Message",
  providerMessage: "ProviderMessage",
  messagingSettings: "MessagingSettings",
  numberHealth: "NumberHealth",
  tenDlcBrand: "TenDlcBrand",
  tenDlcCampaign: "TenDlcCampaign",
  tenDlcPending: "TenDlcPending",
  tenDlcSubmission: "TenDlcSubmission",
  tenDlcReference: "TenDlcReference",
  a2aTask: "A2ATask",
  wallet: "Wallet",
  walletShard: "WalletShard",
  priceList: "PriceList",
  ledgerEntry: "LedgerEntry",
  reservation: "Reservation",
  topUp: "TopUp",
  payment: "Payment",
  paymentDispute: "PaymentDispute",
  paymentReview: "PaymentReview",
  phoneNumberFee: "PhoneNumberFee",
  usageDay: "UsageDay",
  call: "Call",
  callByPhone: "CallByPhone",
  providerCall: "ProviderCall",
  analyticsRollup: "AnalyticsRollup",
  analyticsHistogram: "AnalyticsHistogram",
  analyticsLead: "AnalyticsLead",
  analyticsUnread: "AnalyticsUnread",
  analyticsMilestones: "AnalyticsMilestones",
  analyticsCounted: "AnalyticsCounted",
  analyticsCountedSet: "AnalyticsCountedSet",
  analyticsEarlyResponse: "AnalyticsEarlyResponse",
  webhookEndpoint: "WebhookEndpoint",
  webhookDelivery: "WebhookDelivery",
  webhookAttempt: "WebhookAttempt",
  user: "User",
  userEmail: "UserEmail",
  invitation: "Invitation",
  auditEntry: "AuditEntry",
} as const;
