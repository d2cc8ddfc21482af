import { LeadCreated, LeadReceived } from "#core/leads/queue";
import * as v from "valibot";
import * as Suppressions from "#core/suppressions/index";
import * as Routing from "#core/routing/index";
import { transact, TransactionConditionFailed, Transaction } from "#core/db/transact";
import { conditionally, nothingToRead, readTogether, table } from "#core/db/items";
import { applied } from "#core/db/entity";
import { queryPages } from "#core/db/query";
import { keys, type LeadClaim } from "#core/db/keys";
import { LeadClaimEntity, LeadEntity } from "#core/db/entities/leads";
import { where } from "#core/db/expression";
import * as Events from "#core/events/index";
import { type EventRecordInput, ownerOf } from "#core/events/index";
import * as Leads from "#core/leads/index";
import { claimPart, LeadSchema, pendingShards, type Lead, type ProcessingStatus } from "#core/leads/index";
import { recordUnverifiedOutcome } from "#core/leads/reverify";
import { publish } from "#core/queue/messages";
import { PROCESSING_ERROR } from "#core/queue/subscribe";
import { nowIso } from "#core/shared/ids";
import * as Consent from "#core/consent/index";
import { ConsentVerificationUnavailable } from "#core/consent/index";
import { certificateConsent, recordedKeywordConsent, type IntakeConsent } from "#core/leads/intake-consent";
import * as Sources from "#core/sources/index";
import { defaultDuplicateWindowHours, maxDuplicateWindowHours } from "#core/sources/index";

/**
 * The lead as the outbox's message carried it (inserted Pending), when processing may start from it: a duplicate
 * message for a lead processed since only costs a few reads and writes that its conditions refuse (the outcome's
 * write needs Pending, and a refused attempt reads the lead again), except a certificate or LeadiD check, a paid call
 * outside: a lead naming one is read from the table, as before.
 */
function usable(
  inserted: Record<string, unknown> | undefined,
  organizationId: string,
  leadId: string,
): Record<string, unknown> | undefined {
  if (!inserted || inserted.organizationId !== organizationId || inserted.id !== leadId) return undefined;
  if (inserted.processingStatus !== "Pending" || inserted.jornayaLeadId) return undefined;
  const metadata = inserted.metadata as { certifiedFormUrl?: unknown } | undefined;
  return metadata?.certifiedFormUrl ? undefined : inserted;
}

async function storedLead(organizationId: string, leadId: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await table.get({ Key: keys.lead(organizationId, leadId), ConsistentRead: true });
  return Item;
}

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
  /** The contact claims to take in the outcome's own transaction (a Processed lead whose consent needed no paid check). */
  claims?: ClaimPlan;
}

/** Dedupe claims planned by `decide`, written with the outcome: on one failing, the lead is its holder's duplicate. */
interface ClaimPlan {
  claims: LeadClaim[];
  windowHours: number;
}

/**
 * Asynchronous lead processing, driven by `lead.received` on the intake queue.
 * Every step is idempotent, because SQS delivers at least once: dedupe claims
 * accept their own lead again, the outcome is written only while the lead is
 * still Pending (with its event record, in one transaction), and the automation
 * trigger carries a stable id and is marked as sent on the lead.
 */

export async function process(
  organizationId: string,
  leadId: string,
  attempt = 0,
  inserted?: Record<string, unknown>,
): Promise<void> {
  const Item = usable(inserted, organizationId, leadId) ?? (await storedLead(organizationId, leadId));
  if (!Item) throw new Error(`Lead ${leadId} of ${organizationId} does not exist.`);
  const parsed = v.safeParse(LeadSchema, Item);
  if (!parsed.success) throw new Error(`Lead ${leadId} is not readable: ${parsed.issues[0]?.message}`);
  const lead = parsed.output;
  if (lead.processingStatus !== "Pending") {
    if (lead.processingStatus === "Processed" && !Item.triggerPublishedAt)
      await publishTrigger(organizationId, lead, { current: !Item.routedAt });
    return;
  }
  const leadiDToken = typeof Item.jornayaLeadId === "string" ? Item.jornayaLeadId : null;
  if (leadiDToken)
    await Consent.keepLeadiDToken(
      organizationId,
      lead.id,
      leadiDToken,
      lead.sourceId ? `source:${lead.sourceId}` : "system",
    );
  const outcome = await decide(organizationId, lead, leadiDToken);
  const settled = await recordOutcome(organizationId, lead, outcome);
  // Not settled: another attempt did it, or the contact texted STOP or START after the lead was read (its consent
  // must not be overwritten by what this attempt decided): decide again from the lead as it is now.
  if (!settled && attempt === 0) return process(organizationId, leadId, 1);
  // Settled as decided, or as a duplicate when a claim taken with the outcome was another lead's.
  if (settled?.processingStatus === "Processed") await publishTrigger(organizationId, settled, { current: true });
}

/**
 * The poison hook (core/queue/subscribe): the last attempt before the DLQ
 * ends the lead Failed (`ProcessingError`, with its event) so it does not
 * stay Pending forever.
 */
export async function abandon(organizationId: string, leadId: string, error: unknown): Promise<void> {
  if (error instanceof ConsentVerificationUnavailable) return recordUnverifiedOutcome(organizationId, leadId, error);
  await markFailed(organizationId, leadId, error);
}

/**
 * Republishes leads that stayed Pending longer than `sweepAfterMs` (lost or
 * failed publishes). Each republish is counted on the lead (`sweepAttempts`)
 * and moves its pending entry to now (the next look is `sweepAfterMs` later);
 * a lead already republished SWEEP_ATTEMPTS times ends Failed
 * (`ProcessingError`) instead: the sweep never loops on a poison lead.
 * `organizationId` restricts the sweep to one organization (tests that move the clock).
 */
export async function sweep(now = Date.now(), organizationId?: string): Promise<number> {
  const cutoff = new Date(now - sweepAfterMs).toISOString();
  let republished = 0;
  for (let shard = 0; shard < pendingShards; shard++) {
    const pages = queryPages(LeadEntity.query("pending", { shard }, { range: { below: cutoff }, limit: 100 }));
    for await (const items of pages) {
      for (const item of items) {
        if (organizationId && item.organizationId !== organizationId) continue;
        if (await republish(item, now)) republished++;
      }
      if (republished >= 1000) break;
    }
  }
  return republished;
}

/** How many times the sweep republishes one lead before it ends the lead Failed. */
export const SWEEP_ATTEMPTS = 3;

async function republish(item: Record<string, unknown>, now: number): Promise<boolean> {
  const organizationId = item.organizationId as string;
  const leadId = item.id as string;
  const attempts = Number(item.sweepAttempts ?? 0) + 1;
  if (attempts > SWEEP_ATTEMPTS) {
    await markFailed(
      organizationId,
      leadId,
      new Error(`Still not processed after ${SWEEP_ATTEMPTS} republishes by the sweep.`),
    );
    return false;
  }
  // Claimed on the entry read, so overlapping sweeps republish once.
  const claimed = await conditionally(
    table.update(
      LeadEntity.update(
        { organizationId, id: leadId, processingStatus: "Pending" },
        { sweepAttempts: attempts, sweepDueAt: new Date(now).toISOString() },
        {
          condition: where.all(
            where.equals("processingStatus", "Pending"),
            LeadEntity.indexedAt("pending", LeadEntity.indexPosition("pending", item)),
          ),
        },
      ),
    ),
  );
  if (!claimed) return false;
  await publish(LeadReceived, organizationId, { leadId });
  return true;
}

async function decide(organizationId: string, lead: Lead, leadiDToken: string | null): Promise<Outcome> {
  const phone = lead.contact.phone?.number ?? null;
  const email = lead.contact.email;
  if (!phone && !email) return { status: "Rejected", reason: "NoContactChannel" };

  // The source's settings, the number's suppression entry and the routing settings in one read (a duplicate needs
  // only the first; routing, after the outcome, finds its settings warm: issue 27, one GetItem fewer when cold).
  const [source, suppression] = await readTogether([
    lead.sourceId ? Sources.settingsRead(organizationId, lead.sourceId) : nothingToRead,
    phone ? Suppressions.findRead(organizationId, phone) : nothingToRead,
    Routing.settingsRead(organizationId),
  ]);
  const windowHours = source?.duplicateWindowHours ?? defaultDuplicateWindowHours;
  const claims: LeadClaim[] = [];
  if (phone) claims.push({ kind: "phone", value: phone });
  if (email) claims.push({ kind: "email", value: email });
  // Claimed in the outcome's own transaction (issue 27, h26: one call fewer) unless deciding costs a paid certificate
  // or LeadiD check, which a duplicate must not make: then the claims are taken first, as before.
  const paidCheck = Boolean(lead.metadata.certifiedFormUrl || leadiDToken) && !recordedKeywordConsent(lead, phone);
  const plan = windowHours > 0 && !paidCheck ? { claims, windowHours } : undefined;
  if (windowHours > 0 && !plan) {
    const holder = await claimContact(organizationId, lead, claims, windowHours);
    if (holder) return { status: "Duplicate", reason: "DuplicateContact", duplicateOfLeadId: holder };
  }
  const claimed = plan ? { claims: plan } : {};

  // A STOP or START the contact texted before this lead was processed (a new lead's consent is null until then) is
  // the contact's own word: it is kept, never replaced by what the suppression list or the seller's form say.
  const recorded = recordedKeywordConsent(lead, phone);
  if (suppression) {
    return {
      status: "Processed",
      reason: null,
      ...claimed,
      policy: source?.consentPolicy ?? "allow",
      compliance: {
        status: "Blocked",
        blockedReason: `Suppressed${suppression.reason ? `:${suppression.reason}` : ""}`,
      },
      consent: recorded?.optedOut
        ? recorded
        : {
            status: "OptedOut",
            optedOut: true,
            optOutAt: suppression.createdAt ?? null,
            optInAt: null,
            phoneNumber: phone,
          },
    };
  }
  const consent =
    recorded ?? (await certificateConsent(organizationId, lead, phone, source?.name ?? null, leadiDToken));
  const policy = source?.consentPolicy ?? "allow";
  const flagged = policy === "require" && consent.status !== "OptedIn";
  return {
    status: "Processed",
    reason: null,
    ...claimed,
    policy,
    // Flagged, not blocked: the lead is kept and an agent may still contact it one to one; automated texts and calls
    // are refused until it holds a verified consent (core/consent/basis.ts).
    compliance: flagged
      ? {
          status: "ConsentRequired",
          blockedReason: `VerifiedConsentRequired:${consent.verification ?? "NoCertificate"}`,
        }
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
async function claimContact(
  organizationId: string,
  lead: Lead,
  claims: LeadClaim[],
  windowHours: number,
): Promise<string | undefined> {
  try {
    await transact(claimWrites(organizationId, lead, { claims, windowHours }, new Transaction()));
    return undefined;
  } catch (error) {
    if (!(error instanceof TransactionConditionFailed)) throw error;
    return holderOf(organizationId, lead, claims, error);
  }
}

/** The claims' conditional puts, added to `transaction`: free, already this lead's (redelivery), or past the window. */
function claimWrites(organizationId: string, lead: Lead, plan: ClaimPlan, transaction: Transaction): Transaction {
  const cutoff = new Date(Date.now() - plan.windowHours * 3_600_000).toISOString();
  const expiresAt = Math.ceil((Date.parse(lead.createdAt) + maxDuplicateWindowHours * 3_600_000) / 1000);
  for (const claim of plan.claims) {
    transaction.put(
      claimPart(claim),
      LeadClaimEntity.put(
        { organizationId, claim, leadId: lead.id, claimedAt: lead.createdAt, expiresAt },
        { condition: where.any(where.new(), where.equals("leadId", lead.id), where.before("claimedAt", cutoff)) },
      ),
    );
  }
  return transaction;
}

/** The lead holding a claim whose put `error` refused; throws `error` when none does (let SQS retry). */
async function holderOf(
  organizationId: string,
  lead: Lead,
  claims: LeadClaim[],
  error: TransactionConditionFailed,
): Promise<string> {
  for (const claim of claims) {
    if (!error.failed(claimPart(claim))) continue;
    const Item = await LeadClaimEntity.get({ organizationId, claim }, { consistent: true });
    if (Item && Item.leadId !== lead.id) return Item.leadId as string;
  }
  // The claim changed hands meanwhile (expired and was taken again): let SQS retry.
  throw error;
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
  const who =
    [lead.contact.firstName, lead.contact.lastName].filter(Boolean).join(" ") ||
    lead.contact.phone?.number ||
    lead.contact.email ||
    lead.id;
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
    ...ownerOf(lead),
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

/**
 * Writes the outcome while the lead is still Pending, with its event record: the lead as written (the one read with
 * the outcome's changes: the write's conditions held, so nothing else changed what it decided on), or undefined if
 * another attempt settled it first.
 */
export async function recordOutcome(organizationId: string, lead: Lead, outcome: Outcome): Promise<Lead | undefined> {
  const at = nowIso();
  const changes: Record<string, unknown> = {
    processingStatus: outcome.status,
    processingReason: outcome.reason,
    duplicateOfLeadId: outcome.duplicateOfLeadId ?? null,
    processedAt: at,
    modifiedAt: at,
  };
  if (outcome.compliance)
    Object.assign(changes, {
      "metadata.complianceStatus": outcome.compliance.status,
      "metadata.complianceBlockedReason": outcome.compliance.blockedReason,
    });
  if (outcome.policy) changes.consentPolicy = outcome.policy;
  if (outcome.consent?.basis) changes.consentBasis = outcome.consent.basis;
  if (outcome.consent) {
    const consent = outcome.consent;
    Object.assign(changes, {
      "metadata.smsConsentStatus": consent.status,
      "metadata.smsOptedOut": consent.optedOut,
      "metadata.smsOptOutAt": consent.optOutAt,
      "metadata.smsOptInAt": consent.optInAt,
      "metadata.smsConsentPhoneNumber": consent.phoneNumber,
    });
  }
  // The consent it decided replaces only the consent it read: a STOP or START recorded since wins.
  const consentRead = lead.metadata.smsConsentStatus ?? null;
  const consentUnchanged = !outcome.consent
    ? undefined
    : consentRead !== null
      ? where.equals("metadata.smsConsentStatus", consentRead)
      : where.absentOrNull("metadata.smsConsentStatus");
  // Leaving Pending takes the lead out of the pending sweep's index (the entity removes that entry), unless its consent
  // is to be verified again: then the entry becomes the re-verification entry (core/leads/reverify.ts).
  if (outcome.reverifyAt) changes.consentReverifyAttempts = 0;

  const transaction = new Transaction().update(
    "lead",
    LeadEntity.update({ ...lead, organizationId }, changes, {
      condition: where.all(where.equals("processingStatus", "Pending"), consentUnchanged),
      ...(outcome.reverifyAt ? { enter: { reverify: { reverifyDueAt: outcome.reverifyAt } } } : {}),
    }),
  );
  Events.item(organizationId, leadEvent(lead, outcome, at), transaction);
  if (outcome.claims) claimWrites(organizationId, lead, outcome.claims, transaction);
  try {
    await transact(transaction);
    return applied(lead, changes);
  } catch (error) {
    if (error instanceof TransactionConditionFailed && error.failed("lead")) return undefined;
    if (!(error instanceof TransactionConditionFailed) || !outcome.claims) throw error;
    // A claim is another lead's: this lead is its duplicate (the same outcome as when claims were taken first).
    const holder = await holderOf(organizationId, lead, outcome.claims.claims, error);
    return recordOutcome(organizationId, lead, {
      status: "Duplicate",
      reason: "DuplicateContact",
      duplicateOfLeadId: holder,
    });
  }
}

/**
 * The LeadCreated trigger for automations; its id is stable, so a repeat is recognisable downstream. `current`: the
 * lead is as stored now, never routed (just settled), so routing starts from it rather than reading it again (its
 * write is conditioned on "never routed, unassigned" either way).
 */
export async function publishTrigger(
  organizationId: string,
  lead: Lead,
  options: { current?: boolean } = {},
): Promise<void> {
  // Routing first: an automation may speak for the assigned agent.
  const routed = await Leads.route(organizationId, lead.id, options.current ? lead : undefined);
  await publish(
    LeadCreated,
    organizationId,
    {
      leadId: lead.id,
      sourceId: lead.sourceId,
      complianceStatus: lead.metadata.complianceStatus,
      ...(routed ? { lead: routed } : {}),
    },
    { id: `lead.created:${lead.id}` },
  );
  await table.update(LeadEntity.update({ ...lead, organizationId }, { triggerPublishedAt: nowIso() }));
}

async function markFailed(organizationId: string, leadId: string, error: unknown): Promise<void> {
  const lead = await Leads.find(organizationId, leadId).catch(() => undefined);
  const reason = PROCESSING_ERROR;
  if (lead && v.is(LeadSchema, lead)) {
    await recordOutcome(organizationId, lead, { status: "Failed", reason });
    return;
  }
  // The stored lead cannot even be read: mark it without an event.
  const failedAt = nowIso();
  const failed = { processingStatus: "Failed", processingReason: reason, processedAt: failedAt, modifiedAt: failedAt };
  await table
    .update(
      LeadEntity.update({ organizationId, id: leadId }, failed, {
        condition: where.all(where.stored(), where.equals("processingStatus", "Pending")),
      }),
    )
    .catch(() => undefined);
  console.error(
    JSON.stringify({ level: "error", message: "lead processing failed for good", leadId, error: String(error) }),
  );
}
