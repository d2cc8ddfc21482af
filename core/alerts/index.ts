import { systemActor } from "#core/auth/actor";
import { config } from "#core/config";
import { DomainError } from "#core/errors";
import * as LeadReads from "#core/leads/reads";
import { leadLabel } from "#core/leads/assignment";
import { sendMail } from "#core/mail/index";
import * as Conversations from "#core/messaging/conversations";
import * as Messages from "#core/messaging/messages";
import { logger } from "#core/observability/index";
import { reachableAgent } from "#core/routing/reachable";
import { derivedId } from "#core/shared/ids";
import { parsePhone } from "#core/shared/phone";
import * as Suppressions from "#core/suppressions/index";
import type { AlertChannel, AlertPreferences } from "#core/users/schemas";

/**
 * Agent alerts (issue 28): the user a lead is assigned to is told at once, so is each user a first-to-claim rule
 * offered it to, and so is the assignee of a conversation whose contact writes in; each by the channels of their profile (`alerts`), and not at all while they are away or
 * deactivated (`reachableAgent`, core/routing/reachable.ts). Read from the committed events on the table's stream (`agentAlerts`), so every
 * way a lead is assigned (routing, a person, a claim, an automation) alerts exactly as it is recorded.
 *
 * The SMS goes from the organization's own number to the agent's profile phone through the outbound pipeline
 * (`purpose: AgentAlert`: billed and paced like any message, outside the contact rules that protect leads, but never
 * to a number that opted out); its message id is derived from the event and the user, so a stream record read twice sends one
 * SMS. An e-mail read twice may go twice (mail has no idempotency key); at-least-once is the honest promise there.
 */

/** The events that alert, and the preference each one reads (an offer to claim is news of a lead as well). */
const ALERTS = {
  LeadAssigned: "newLead",
  LeadOffered: "newLead",
  MessageReceived: "inboundReply",
} as const satisfies Record<string, keyof AlertPreferences>;
export type AlertingEvent = keyof typeof ALERTS;
export const alertingEvents = Object.keys(ALERTS) as AlertingEvent[];

/** The stored event as the stream shows it (the fields an alert reads). */
export interface AlertEvent {
  id: string;
  eventType: string;
  leadId?: string | null;
  conversationId?: string | null;
  relatedEntityId?: string | null;
  fromPhoneNumber?: string | null;
  actorUserId?: string | null;
}

/** Whom an alert is for, and what it says by each channel. */
interface Alert {
  userId: string;
  sms: string;
  mail: { subject: string; text: string };
}

/** Tells the users an event concerns, if it alerts and they want to be told; what went out, by user, for the log. */
export async function fromEvent(organizationId: string, event: AlertEvent): Promise<AlertChannel[]> {
  const alerts = await alertsFor(organizationId, event);
  const sent = await Promise.all(alerts.map((alert) => tell(organizationId, event, alert)));
  return sent.flat();
}

async function tell(organizationId: string, event: AlertEvent, alert: Alert): Promise<AlertChannel[]> {
  const recipient = await reachableAgent(organizationId, alert.userId);
  if (!recipient) return []; // away or deactivated: quiet
  const wanted = recipient.alerts[ALERTS[event.eventType as AlertingEvent]];
  const sent: AlertChannel[] = [];
  if (wanted.includes("sms") && recipient.phone && (await textAgent(organizationId, event, recipient.phone, alert)))
    sent.push("sms");
  if (wanted.includes("email")) {
    await sendMail({ to: recipient.email, ...alert.mail });
    sent.push("email");
  }
  return sent;
}

async function alertsFor(organizationId: string, event: AlertEvent): Promise<Alert[]> {
  if (event.eventType === "LeadAssigned") {
    const userId = event.relatedEntityId;
    // A user who took the lead themselves (a claim, their own assignment) knows already.
    if (!userId || !event.leadId || event.actorUserId === userId) return [];
    const lead = await LeadReads.find(organizationId, event.leadId);
    if (!lead || lead.assignedUserId !== userId) return []; // reassigned since: the newer event alerts
    const who = leadLabel(lead);
    const reach = [lead.contact.phone?.number, lead.contact.email].filter(Boolean).join(", ");
    return [
      {
        userId,
        sms: `New lead for you: ${who}${reach ? ` (${reach})` : ""}. ${leadLink(lead.id)}`,
        mail: {
          subject: `New lead: ${who}`,
          text: [
            `A new lead was assigned to you: ${who}.`,
            ...(reach ? [`Reach them at ${reach}.`] : []),
            ...(lead.metadata.vertical ? [`Vertical: ${lead.metadata.vertical}.`] : []),
            "",
            `Open the lead: ${leadLink(lead.id)}`,
          ].join("\n"),
        },
      },
    ];
  }
  if (event.eventType === "LeadOffered") {
    const lead = event.leadId ? await LeadReads.find(organizationId, event.leadId) : undefined;
    if (!lead || lead.assignedUserId) return []; // claimed already: nothing left to offer
    const who = leadLabel(lead);
    return lead.offeredTo.map((userId) => ({
      userId,
      sms: `New lead to claim: ${who}. The first to claim it gets it: ${leadLink(lead.id)}`,
      mail: {
        subject: `New lead to claim: ${who}`,
        text: [
          `A new lead was offered to you and your colleagues: ${who}. The first to claim it gets it.`,
          "",
          `Claim the lead: ${leadLink(lead.id)}`,
        ].join("\n"),
      },
    }));
  }
  if (event.eventType === "MessageReceived") {
    if (!event.conversationId) return [];
    const conversation = await Conversations.find(organizationId, event.conversationId);
    const userId = conversation?.assignedUserId;
    if (!conversation || !userId) return [];
    const message = event.relatedEntityId ? await Messages.find(organizationId, event.relatedEntityId) : undefined;
    const lead = conversation.leadId ? await LeadReads.find(organizationId, conversation.leadId) : undefined;
    const who = lead ? leadLabel(lead) : (event.fromPhoneNumber ?? "A contact");
    const said = message?.body ? `: "${ellipsis(message.body, 120)}"` : message?.media.length ? " (a picture)" : "";
    const link = `${config.publicBaseUrl}/app/#/conversations/${conversation.id}`;
    return [
      {
        userId,
        sms: `${who} replied${said}. ${link}`,
        mail: {
          subject: `${who} replied`,
          text: [`${who} replied${said}.`, "", `Open the conversation: ${link}`].join("\n"),
        },
      },
    ];
  }
  return [];
}

/** The SMS alert, once per event (its id derived from the event's); false when it cannot go (no number, no funds, opted out). */
async function textAgent(organizationId: string, event: AlertEvent, phone: string, alert: Alert): Promise<boolean> {
  const to = parsePhone(phone)?.e164 ?? phone;
  if ((await Suppressions.suppressedAmong(organizationId, [to])).has(to)) return false;
  try {
    await Messages.send(
      systemActor(organizationId),
      { to, body: alert.sms },
      {
        messageId: async () => derivedId(event.id, "alert:sms"),
        origin: { createdBy: "system", purpose: "AgentAlert" },
      },
    );
    return true;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    logger.warn("An agent's SMS alert was refused (sender, wallet or number)", {
      organizationId,
      eventId: event.id,
      error: error.message,
    });
    return false;
  }
}

const leadLink = (leadId: string) => `${config.publicBaseUrl}/app/#/leads/${leadId}`;

function ellipsis(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}
