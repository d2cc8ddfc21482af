import * as v from "valibot";
import type { Actor } from "#core/auth/actor";
import { find as findCall } from "#core/calls/queries";
import { ConsentBasisSchema, consentPolicies } from "#core/consent/basis";
import * as Consent from "#core/consent/index";
import { ConsentEvidenceSchema } from "#core/consent/index";
import { listEvents } from "#core/events/list";
import { leadConsentState } from "#core/leads/consent";
import * as LeadReads from "#core/leads/reads";
import { findMessage } from "#core/messaging/message-reads";

const nullableString = v.nullable(v.string());

/** One text or call to the lead: when, how, by whom, what was said, what it relied on and what the contact rules decided. */
export const ContactAttemptSchema = v.object({
  id: v.string(),
  at: v.string(),
  channel: v.picklist(["Sms", "Mms", "Call"]),
  /** Who sent it: a user, an API key, an automation. */
  sender: v.string(),
  fromPhoneNumber: nullableString,
  toPhoneNumber: v.string(),
  content: nullableString,
  status: v.string(),
  /** The rule that stopped or deferred it, and why (quiet hours, opt-out, suppression, consent). */
  complianceAction: nullableString,
  /** The contact rules it passed (`QuietHours`, `StateWindow:FL`, `OptOut`, `Suppression`, `FrequencyCap:FL` …), as recorded when it was sent or placed. */
  complianceChecks: v.array(v.string()),
  statusReason: nullableString,
  scheduledReason: nullableString,
  consentBasis: v.nullable(ConsentBasisSchema),
});

/** A lead's consent record: evidence a business can hand to counsel (JSON, or the printable page). */
export const ConsentRecordSchema = v.object({
  leadId: v.string(),
  generatedAt: v.string(),
  phoneNumber: nullableString,
  email: nullableString,
  smsConsentStatus: nullableString,
  smsOptedOut: v.boolean(),
  /** The consent policy of the lead's source when it arrived. */
  consentPolicy: v.picklist(consentPolicies),
  /** What its automated texts and calls rely on now. */
  consentBasis: v.nullable(ConsentBasisSchema),
  /** The latest certificate check (TrustedForm), verified or not. */
  certificate: v.nullable(ConsentEvidenceSchema),
  /** Every consent event, oldest first: certificate checks, consent records, opt-ins, opt-outs. */
  consentEvents: v.array(ConsentEvidenceSchema),
  contactAttempts: v.array(ContactAttemptSchema),
  optOuts: v.array(ConsentEvidenceSchema),
});
export type ConsentRecord = v.InferOutput<typeof ConsentRecordSchema>;
type ContactAttempt = v.InferOutput<typeof ContactAttemptSchema>;

/** Reads at most this many of the lead's events for its contact attempts (a lead is texted and called far fewer times). */
const MAX_EVENT_PAGES = 20;

/** `GET /leads/{id}/consent`: the lead's consent record (404 for a lead of another organization). */
export async function consentRecord(actor: Actor, leadId: string): Promise<ConsentRecord> {
  const lead = await LeadReads.fromId(actor, leadId);
  const [evidence, state, attempts] = await Promise.all([
    Consent.evidenceOf(actor.organizationId, leadId),
    leadConsentState(actor.organizationId, leadId),
    contactAttempts(actor, leadId),
  ]);
  return {
    leadId,
    generatedAt: new Date().toISOString(),
    phoneNumber: lead.contact.phone?.number ?? null,
    email: lead.contact.email,
    smsConsentStatus: lead.metadata.smsConsentStatus,
    smsOptedOut: lead.metadata.smsOptedOut,
    consentPolicy: state?.policy ?? "allow",
    consentBasis: state?.basis ?? null,
    certificate: evidence.findLast((entry) => entry.kind === "Certificate") ?? null,
    consentEvents: evidence,
    contactAttempts: attempts,
    optOuts: evidence.filter((entry) => entry.kind === "OptOut"),
  };
}

/** The outbound messages and calls the lead's events name, oldest first. */
async function contactAttempts(actor: Actor, leadId: string): Promise<ContactAttempt[]> {
  const messageIds = new Set<string>();
  const callIds = new Set<string>();
  let continuationToken: string | null = null;
  for (let page = 0; page < MAX_EVENT_PAGES; page++) {
    const events = await listEvents(
      actor,
      { leadId },
      { pageSize: 100, ...(continuationToken ? { continuationToken } : {}) },
      false, // the whole timeline of a lead the caller may read (its record's LeadReads.fromId)
    );
    for (const event of events.items) {
      if (!event.relatedEntityId || event.direction === "Inbound") continue;
      if (event.relatedEntityType === "Message") messageIds.add(event.relatedEntityId);
      if (event.relatedEntityType === "Call") callIds.add(event.relatedEntityId);
    }
    continuationToken = events.continuationToken;
    if (!continuationToken) break;
  }
  const organizationId = actor.organizationId;
  const [messages, calls] = await Promise.all([
    Promise.all([...messageIds].map((id) => findMessage(organizationId, id))),
    Promise.all([...callIds].map((id) => findCall(organizationId, id))),
  ]);
  const attempts: ContactAttempt[] = [];
  for (const message of messages) {
    if (!message || message.direction !== "Outbound") continue;
    attempts.push({
      id: message.id,
      at: message.createdAt,
      channel: message.channel,
      sender: message.actorDisplayName ?? message.createdBy,
      fromPhoneNumber: message.fromPhoneNumber ?? null,
      toPhoneNumber: message.toPhoneNumber,
      content: message.body,
      status: message.status,
      complianceAction: message.complianceAction ?? null,
      complianceChecks: message.complianceChecks ?? [],
      statusReason: message.statusReason ?? null,
      scheduledReason: message.scheduledReason ?? null,
      consentBasis: message.consentBasis ?? null,
    });
  }
  for (const call of calls) {
    if (!call || call.direction !== "Outbound") continue;
    attempts.push({
      id: call.id,
      at: call.createdAt,
      channel: "Call",
      sender: call.user ?? call.createdBy,
      fromPhoneNumber: call.fromPhoneNumber,
      toPhoneNumber: call.toPhoneNumber,
      content: null,
      status: call.status,
      complianceAction: null,
      complianceChecks: call.complianceChecks ?? [],
      statusReason: call.statusReason,
      scheduledReason: null,
      consentBasis: call.consentBasis ?? null,
    });
  }
  return attempts.sort((a, b) => a.at.localeCompare(b.at));
}

/** The record as a self-contained page to print or save as PDF (no script, no outside resource). */
export function consentRecordPage(record: ConsentRecord): string {
  const row = (cells: (string | null | undefined)[]) =>
    `<tr>${cells.map((cell) => `<td>${escape(cell ?? "—")}</td>`).join("")}</tr>`;
  const head = (cells: string[]) => `<tr>${cells.map((cell) => `<th>${escape(cell)}</th>`).join("")}</tr>`;
  const certificate = record.certificate?.certificate;
  const basis = (b: ContactAttempt["consentBasis"]) =>
    b ? `${b.kind}${b.reference ? ` ${b.reference}` : ""}` : "none";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Consent record of lead ${escape(record.leadId)}</title>
<style>body{font:14px/1.4 system-ui,sans-serif;margin:2rem}table{border-collapse:collapse;width:100%;margin-bottom:1.5rem}td,th{border:1px solid #999;padding:4px 6px;text-align:left;vertical-align:top}h2{margin-top:2rem}</style></head>
<body>
<h1>Consent record</h1>
<table>
${row(["Lead", record.leadId])}${row(["Phone", record.phoneNumber])}${row(["E-mail", record.email])}${row(["SMS consent", record.smsConsentStatus])}
${row(["Opted out", record.smsOptedOut ? "yes" : "no"])}${row(["Source policy", record.consentPolicy])}${row(["Consent basis", basis(record.consentBasis)])}${row(["Generated", record.generatedAt])}
</table>
<h2>Certificate</h2>
<table>
${row(["Outcome", record.certificate?.outcome])}${row(["Reason", record.certificate?.reason])}${row(["Certificate id", certificate?.certificateId])}
${row(["Certificate URL", certificate?.certificateUrl])}${row(["Page URL", certificate?.pageUrl])}${row(["Consent language", certificate?.consentLanguage])}
${row(["Captured", certificate?.capturedAt])}${row(["Expires", certificate?.expiresAt])}${row(["Retained until", certificate?.retainedUntil])}
</table>
<h2>Consent events</h2>
<table>${head(["Time", "Kind", "Outcome", "Recorded by", "Detail"])}
${record.consentEvents.map((entry) => row([entry.at, entry.kind, entry.outcome, entry.recordedBy, entry.record?.consentLanguage ?? entry.reason])).join("\n")}
</table>
<h2>Contact attempts</h2>
<table>${head(["Time", "Channel", "Sender", "From", "To", "Content", "Status", "Rule", "Checks passed", "Consent basis"])}
${record.contactAttempts.map((attempt) => row([attempt.at, attempt.channel, attempt.sender, attempt.fromPhoneNumber, attempt.toPhoneNumber, attempt.content, attempt.status, [attempt.complianceAction, attempt.statusReason ?? attempt.scheduledReason].filter(Boolean).join(": ") || null, attempt.complianceChecks.join(", ") || null, basis(attempt.consentBasis)])).join("\n")}
</table>
<h2>Opt-outs</h2>
<table>${head(["Time", "Recorded by"])}
${record.optOuts.map((entry) => row([entry.at, entry.recordedBy])).join("\n")}
</table>
</body></html>
`;
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
