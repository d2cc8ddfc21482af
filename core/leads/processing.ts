import { LeadCreated, LeadReceived } from "#core/leads/queue";
import * as v from "valibot";
import { Suppressions } from "#core/suppressions/index";
import { transact, TransactionConditionFailed, Transaction } from "#core/db/transact";
import { conditionally, table } from "#core/db/items";
import { queryPages } from "#core/db/query";
import { entities, keys, type LeadClaim } from "#core/db/keys";
import { type EventRecordInput, Events } from "#core/events/index";
import { Leads, LeadSchema, pendingShard, pendingShards, type Lead, type ProcessingStatus } from "#core/leads/index";
import { settleUnverified } from "#core/leads/reverify";
import { publish } from "#core/queue/events";
import { PROCESSING_ERROR } from "#core/queue/subscribe";
import { nowIso } from "#core/shared/ids";
import { Consent, ConsentVerificationUnavailable } from "#core/consent/index";
import { certificateConsent, recordedKeywordConsent, type IntakeConsent } from "#core/leads/intake-consent";
import { defaultDuplicateWindowHours, maxDuplicateWindowHours, Sources } from "#core/sources/index";

/** A pending lead older than this is republished by the sweep (its message was lost or is stuck). */
export const sweepAfterMs = 2 * 60 * 1000;

/** Processing outcome written in one step with its event record. */
export interface Outcome {
  status: Exclude<ProcessingStatus, "Pending">;
  reason: string | null;
  duplicateOfLeadId?: string;
  compliance?: { status: "Allowed" | "Blocked" | "ConsentRequired"; blockedReason: string | null };
  consent?: IntakeConsent;
  /** The source's consent policy, kept on the lead for its sends. */
  policy?: "allow" | "require";
  /** Verification was cut short by an outage: when to try it again (core/leads/reverify.ts). */
  reverifyAt?: string;
}

/**
 * Asynchronous lead processing, driven by `lead.received` on the intake queue.
 * Every step is idempotent, because SQS delivers at least once: dedupe claims
 * accept their own lead again, the outcome is written only while the lead is
 * still Pending (with its event record, in one transaction), and the automation
 * trigger carries a stable id and is marked as sent on the lead.
 */
export const LeadProcessing = {
  async process(organizationId: string, leadId: string, attempt = 0): Promise<void> {
    const { Item } = await table.get({ Key: keys.lead(organizationId, leadId), ConsistentRead: true });
    if (!Item) throw new Error(`Lead ${leadId} of ${organizationId} does not exist.`);
    const parsed = v.safeParse(LeadSchema, Item);
    if (!parsed.success) throw new Error(`Lead ${leadId} is not readable: ${parsed.issues[0]?.message}`);
    const lead = parsed.output;
    if (lead.processingStatus !== "Pending") {
      if (lead.processingStatus === "Processed" && !Item.triggerPublishedAt) await publishTrigger(organizationId, lead);
      return;
    }
    const leadiDToken = typeof Item.jornayaLeadId === "string" ? Item.jornayaLeadId : null;
    if (leadiDToken) await Consent.keepLeadiDToken(organizationId, lead.id, leadiDToken, lead.sourceId ? `source:${lead.sourceId}` : "system");
    const outcome = await decide(organizationId, lead, leadiDToken);
    const settled = await settle(organizationId, lead, outcome);
    // Not settled: another attempt did it, or the contact texted STOP or START after the lead was read (its consent
    // must not be overwritten by what this attempt decided): decide again from the lead as it is now.
    if (!settled && attempt === 0) return LeadProcessing.process(organizationId, leadId, 1);
    if (settled && outcome.status === "Processed") await publishTrigger(organizationId, { ...lead, metadata: { ...lead.metadata, complianceStatus: outcome.compliance?.status ?? null } });
  },

  /**
   * The poison hook (core/queue/subscribe): the last attempt before the DLQ
   * ends the lead Failed (`ProcessingError`, with its event) so it does not
   * stay Pending forever.
   */
  async abandon(organizationId: string, leadId: string, error: unknown): Promise<void> {
    if (error instanceof ConsentVerificationUnavailable) return settleUnverified(organizationId, leadId, error);
    await markFailed(organizationId, leadId, error);
  },

  /**
   * Republishes leads that stayed Pending longer than `sweepAfterMs` (lost or
   * failed publishes). Each republish is counted on the lead (`sweepAttempts`)
   * and moves its pending entry to now (the next look is `sweepAfterMs` later);
   * a lead already republished SWEEP_ATTEMPTS times ends Failed
   * (`ProcessingError`) instead: the sweep never loops on a poison lead.
   * `organizationId` restricts the sweep to one organization (tests that move the clock).
   */
  async sweep(now = Date.now(), organizationId?: string): Promise<number> {
    const cutoff = new Date(now - sweepAfterMs).toISOString();
    let republished = 0;
    for (let shard = 0; shard < pendingShards; shard++) {
      const { gsi3pk } = keys.pendingLead(shard, "", "", "");
      const pages = queryPages({
        index: "dueWork",
        KeyConditionExpression: "gsi3pk = :pk AND gsi3sk < :cutoff",
        ExpressionAttributeValues: { ":pk": gsi3pk, ":cutoff": cutoff },
        Limit: 100,
      });
      for await (const items of pages) {
        for (const item of items) {
          if (organizationId && item.organizationId !== organizationId) continue;
          if (await republish(item, shard, now)) republished++;
        }
        if (republished >= 1000) break;
      }
    }
    return republished;
  },
};

/** How many times the sweep republishes one lead before it ends the lead Failed. */
export const SWEEP_ATTEMPTS = 3;

async function republish(item: Record<string, unknown>, shard: number, now: number): Promise<boolean> {
  const organizationId = item.organizationId as string;
  const leadId = item.id as string;
  const attempts = Number(item.sweepAttempts ?? 0) + 1;
  if (attempts > SWEEP_ATTEMPTS) {
    await markFailed(organizationId, leadId, new Error(`Still not processed after ${SWEEP_ATTEMPTS} republishes by the sweep.`));
    return false;
  }
  // Claimed on the entry read, so overlapping sweeps republish once.
  const claimed = await conditionally(
    table.update({
      Key: keys.lead(organizationId, leadId),
      UpdateExpression: "SET sweepAttempts = :attempts, gsi3sk = :next",
      ConditionExpression: "processingStatus = :pending AND gsi3sk = :seen",
      ExpressionAttributeValues: {
        ":attempts": attempts,
        ":next": keys.pendingLead(shard, new Date(now).toISOString(), organizationId, leadId).gsi3sk,
        ":pending": "Pending",
        ":seen": item.gsi3sk,
      },
    }),
  );
  if (!claimed) return false;
  await publish(LeadReceived, organizationId, { leadId });
  return true;
}

async function decide(organizationId: string, lead: Lead, leadiDToken: string | null): Promise<Outcome> {
  const phone = lead.contact.phone?.number ?? null;
  const email = lead.contact.email;
  if (!phone && !email) return { status: "Rejected", reason: "NoContactChannel" };

  const source = lead.sourceId ? await Sources.settings(organizationId, lead.sourceId) : undefined;
  const windowHours = source?.duplicateWindowHours ?? defaultDuplicateWindowHours;
  if (windowHours > 0) {
    const claims: LeadClaim[] = [];
    if (phone) claims.push({ kind: "phone", value: phone });
    if (email) claims.push({ kind: "email", value: email });
    const holder = await claimContact(organizationId, lead, claims, windowHours);
    if (holder) return { status: "Duplicate", reason: "DuplicateContact", duplicateOfLeadId: holder };
  }

  // A STOP or START the contact texted before this lead was processed (a new lead's consent is null until then) is
  // the contact's own word: it is kept, never replaced by what the suppression list or the seller's form say.
  const recorded = recordedKeywordConsent(lead, phone);
  const suppression = phone ? await Suppressions.find(organizationId, phone) : undefined;
  if (suppression) {
    return {
      status: "Processed",
      reason: null,
      policy: source?.consentPolicy ?? "allow",
      compliance: { status: "Blocked", blockedReason: `Suppressed${suppression.reason ? `:${suppression.reason}` : ""}` },
      consent: recorded?.optedOut
        ? recorded
        : { status: "OptedOut", optedOut: true, optOutAt: suppression.createdAt ?? null, optInAt: null, phoneNumber: phone },
    };
  }
  const consent = recorded ?? (await certificateConsent(organizationId, lead, phone, source?.name ?? null, leadiDToken));
  const policy = source?.consentPolicy ?? "allow";
  const flagged = policy === "require" && consent.status !== "OptedIn";
  return {
    status: "Processed",
    reason: null,
    policy,
    // Flagged, not blocked: the lead is kept and an agent may still contact it one to one; automated texts and calls
    // are refused until it holds a verified consent (core/consent/basis.ts).
    compliance: flagged
      ? { status: "ConsentRequired", blockedReason: `VerifiedConsentRequired:${consent.verification ?? "NoCertificate"}` }
      : { status: "Allowed", blockedReason: null },
    consent,
  };
}

/**
 * Claims the lead's phone and email in one transaction. A claim is ours when it
 * is free, already ours (redelivery), or older than the window; otherwise the
 * lead holding it is returned and this lead is its duplicate. Conditional
 * writes, not read-then-write, so two simultaneous posts yield one original.
 */
async function claimContact(organizationId: string, lead: Lead, claims: LeadClaim[], windowHours: number): Promise<string | undefined> {
  const now = Date.now();
  const cutoff = new Date(now - windowHours * 3_600_000).toISOString();
  try {
    await transact(
      claims.map((claim) => ({
        Put: {
          Item: {
            ...keys.leadClaim(organizationId, claim),
            entity: entities.leadClaim,
            leadId: lead.id,
            claimedAt: lead.createdAt,
            expiresAt: Math.ceil((Date.parse(lead.createdAt) + maxDuplicateWindowHours * 3_600_000) / 1000),
          },
          ConditionExpression: "attribute_not_exists(pk) OR leadId = :self OR claimedAt < :cutoff",
          ExpressionAttributeValues: { ":self": lead.id, ":cutoff": cutoff },
        },
      })),
    );
    return undefined;
  } catch (error) {
    if (!(error instanceof TransactionConditionFailed)) throw error;
    for (const [index, claim] of claims.entries()) {
      if (!error.failedIndexes.includes(index)) continue;
      const { Item } = await table.get({ Key: keys.leadClaim(organizationId, claim), ConsistentRead: true });
      if (Item && Item.leadId !== lead.id) return Item.leadId as string;
    }
    // The claim changed hands meanwhile (expired and was taken again): let SQS retry.
    throw error;
  }
}

const eventTypes = {
  Processed: "LeadCreated",
  Duplicate: "LeadDuplicate",
  Rejected: "LeadRejected",
  Failed: "LeadProcessingFailed",
} as const satisfies Record<Outcome["status"], string>;

/** Event types lead intake records, one per outcome. */
export type LeadEventType = (typeof eventTypes)[keyof typeof eventTypes];

function leadEvent(lead: Lead, outcome: Outcome, at: string): EventRecordInput {
  const who = [lead.contact.firstName, lead.contact.lastName].filter(Boolean).join(" ") || lead.contact.phone?.number || lead.contact.email || lead.id;
  const descriptions: Record<Outcome["status"], string> = {
    Processed: `Lead ${who} received${outcome.compliance?.status === "Blocked" ? " (contact suppressed: messaging blocked)" : ""}.`,
    Duplicate: `Lead ${who} is a duplicate of lead ${outcome.duplicateOfLeadId}.`,
    Rejected: `Lead ${who} rejected: ${outcome.reason}.`,
    Failed: `Lead ${who} could not be processed.`,
  };
  return {
    eventType: eventTypes[outcome.status],
    eventCategory: "Lead",
    timelineCategory: "Lead",
    timelineType: "Lead",
    description: descriptions[outcome.status],
    summary: outcome.status,
    leadId: lead.id,
    relatedEntityType: "Lead",
    relatedEntityId: outcome.duplicateOfLeadId ?? lead.id,
    status: outcome.status,
    ...(outcome.reason ? { statusReason: outcome.reason } : {}),
    trafficType: "RealLead",
    ...(lead.sourceId ? { sourceId: lead.sourceId } : {}),
    ...(lead.contact.phone ? { toPhoneNumber: lead.contact.phone.number } : {}),
    ...(outcome.compliance?.status === "Blocked" ? { complianceAction: "Blocked", blockedAt: at } : {}),
    ...(outcome.status === "Failed" ? { failedAt: at } : {}),
    createdAt: at,
    createdBy: lead.metadata.userId ?? (lead.sourceId ? `source:${lead.sourceId}` : "system"),
    ...(lead.metadata.userId ? { actorUserId: lead.metadata.userId } : {}),
    actorDisplayName: "Lead intake",
  };
}

/** Writes the outcome while the lead is still Pending, with its event record; false if another attempt settled it first. */
export async function settle(organizationId: string, lead: Lead, outcome: Outcome): Promise<boolean> {
  const at = nowIso();
  const values: Record<string, unknown> = {
    ":status": outcome.status,
    ":reason": outcome.reason,
    ":duplicateOf": outcome.duplicateOfLeadId ?? null,
    ":at": at,
    ":pending": "Pending",
    ":statusIndex": keys.leadsByStatus(organizationId, outcome.status).gsi7pk,
    ":modifiedOrder": keys.leadsByModified(organizationId, at, lead.id).gsi6sk,
  };
  const sets = [
    "processingStatus = :status",
    "processingReason = :reason",
    "duplicateOfLeadId = :duplicateOf",
    "processedAt = :at",
    "modifiedAt = :at",
    "gsi7pk = :statusIndex",
    "gsi6sk = :modifiedOrder",
  ];
  if (outcome.compliance) {
    Object.assign(values, { ":compliance": outcome.compliance.status, ":blockedReason": outcome.compliance.blockedReason });
    sets.push("#metadata.complianceStatus = :compliance", "#metadata.complianceBlockedReason = :blockedReason");
  }
  if (outcome.policy) {
    values[":policy"] = outcome.policy;
    sets.push("consentPolicy = :policy");
  }
  if (outcome.consent?.basis) {
    values[":basis"] = outcome.consent.basis;
    sets.push("consentBasis = :basis");
  }
  if (outcome.consent) {
    const consent = outcome.consent;
    Object.assign(values, {
      ":consent": consent.status,
      ":optedOut": consent.optedOut,
      ":optOutAt": consent.optOutAt,
      ":optInAt": consent.optInAt,
      ":consentPhone": consent.phoneNumber,
    });
    sets.push(
      "#metadata.smsConsentStatus = :consent",
      "#metadata.smsOptedOut = :optedOut",
      "#metadata.smsOptOutAt = :optOutAt",
      "#metadata.smsOptInAt = :optInAt",
      "#metadata.smsConsentPhoneNumber = :consentPhone",
    );
  }
  // The consent it decided replaces only the consent it read: a STOP or START recorded since wins.
  const consentRead = lead.metadata.smsConsentStatus ?? null;
  if (consentRead !== null) values[":consentRead"] = consentRead;
  else if (outcome.consent) values[":null"] = "NULL";
  const consentUnchanged = !outcome.consent
    ? ""
    : consentRead !== null
      ? " AND #metadata.smsConsentStatus = :consentRead"
      : " AND (attribute_not_exists(#metadata.smsConsentStatus) OR attribute_type(#metadata.smsConsentStatus, :null))";
  // The pending entry becomes the re-verification entry, or goes.
  if (outcome.reverifyAt) {
    const due = keys.reverifyLead(pendingShard(lead.id), outcome.reverifyAt, organizationId, lead.id);
    Object.assign(values, { ":duePartition": due.gsi3pk, ":dueOrder": due.gsi3sk, ":noAttempts": 0 });
    sets.push("gsi3pk = :duePartition", "gsi3sk = :dueOrder", "consentReverifyAttempts = :noAttempts");
  }
  const transaction = new Transaction();
  transaction.add({
    Update: {
      Key: keys.lead(organizationId, lead.id),
      UpdateExpression: `SET ${sets.join(", ")}${outcome.reverifyAt ? "" : " REMOVE gsi3pk, gsi3sk"}`,
      ConditionExpression: `processingStatus = :pending${consentUnchanged}`,
      ...(outcome.compliance || outcome.consent ? { ExpressionAttributeNames: { "#metadata": "metadata" } } : {}),
      ExpressionAttributeValues: values,
    },
  });
  Events.item(organizationId, leadEvent(lead, outcome, at), transaction);
  try {
    await transact(transaction);
    return true;
  } catch (error) {
    if (error instanceof TransactionConditionFailed && error.failedIndexes.includes(0)) return false;
    throw error;
  }
}

/** The LeadCreated trigger for automations; its id is stable, so a repeat is recognisable downstream. */
export async function publishTrigger(organizationId: string, lead: Lead): Promise<void> {
  await Leads.route(organizationId, lead.id); // routing first: an automation may speak for the assigned agent
  await publish(
    LeadCreated, organizationId,
    { leadId: lead.id, sourceId: lead.sourceId, complianceStatus: lead.metadata.complianceStatus },
    { id: `lead.created:${lead.id}` },
  );
  await table.update({
    Key: keys.lead(organizationId, lead.id),
    UpdateExpression: "SET triggerPublishedAt = :at",
    ExpressionAttributeValues: { ":at": nowIso() },
  });
}

async function markFailed(organizationId: string, leadId: string, error: unknown): Promise<void> {
  const lead = await Leads.find(organizationId, leadId).catch(() => undefined);
  const reason = PROCESSING_ERROR;
  if (lead && v.is(LeadSchema, lead)) {
    await settle(organizationId, lead, { status: "Failed", reason });
    return;
  }
  // The stored lead cannot even be read: mark it without an event.
  const failedAt = nowIso();
  await table
    .update({
      Key: keys.lead(organizationId, leadId),
      UpdateExpression:
        "SET processingStatus = :failed, processingReason = :reason, processedAt = :at, modifiedAt = :at, gsi7pk = :statusIndex, gsi6sk = :modifiedOrder REMOVE gsi3pk, gsi3sk",
      ConditionExpression: "attribute_exists(pk) AND processingStatus = :pending",
      ExpressionAttributeValues: {
        ":failed": "Failed",
        ":reason": reason,
        ":at": failedAt,
        ":pending": "Pending",
        ":statusIndex": keys.leadsByStatus(organizationId, "Failed").gsi7pk,
        ":modifiedOrder": keys.leadsByModified(organizationId, failedAt, leadId).gsi6sk,
      },
    })
    .catch(() => undefined);
  console.error(JSON.stringify({ level: "error", message: "lead processing failed for good", leadId, error: String(error) }));
}
