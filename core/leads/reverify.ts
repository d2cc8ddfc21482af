import * as v from "valibot";
import * as Consent from "#core/consent/index";
import { ConsentVerificationUnavailable } from "#core/consent/index";
import { LeadEntity } from "#core/db/entities/leads";
import { where } from "#core/db/expression";
import { conditionally, table } from "#core/db/items";
import { queryPages } from "#core/db/query";
import { Transaction, transact, TransactionConditionFailed } from "#core/db/transact";
import * as Events from "#core/events/index";
import { ownerOf } from "#core/events/index";
import * as Leads from "#core/leads/index";
import { LeadSchema, pendingShards } from "#core/leads/index";
import { certificateConsent, recordedKeywordConsent } from "#core/leads/intake-consent";
import { publishTrigger, recordOutcome } from "#core/leads/processing";
import { nowIso } from "#core/shared/ids";
import * as Sources from "#core/sources/index";

/**
 * How long after each failed attempt a lead left `Unverified` by a certificate-API outage is tried again: 5 minutes,
 * then 15, 1 h, 3 h, 6 h, 12 h (about a day in all); after the last the lead stays Unverified, the outage kept as its reason.
 */
export const REVERIFY_BACKOFF_MS = [5, 15, 60, 180, 360, 720].map((minutes) => minutes * 60_000);

/** When a lead just settled Unverified by an outage is first tried again. */
export function firstReverificationAt(now = Date.now()): string {
  return new Date(now + REVERIFY_BACKOFF_MS[0]!).toISOString();
}

/** The event a re-verification that opts a lead in records in its timeline. */
export type LeadConsentEventType = "LeadConsentVerified";

/**
 * The certificate API (TrustedForm, Jornaya) stayed unavailable through every retry: the lead is not lost but processed `Unverified` (the outage
 * kept as its certificate evidence, the reason `ConsentVerificationUnavailable`), so its automations run under its
 * source's policy like any unverified lead's, and it is verified again later (`reverifyDue`).
 */
export async function recordUnverifiedOutcome(
  organizationId: string,
  leadId: string,
  error: ConsentVerificationUnavailable,
): Promise<void> {
  const lead = await Leads.find(organizationId, leadId);
  if (!lead || lead.processingStatus !== "Pending") return;
  await Consent.verificationUnavailable(organizationId, leadId, error.reason);
  const source = lead.sourceId ? await Sources.settings(organizationId, lead.sourceId) : undefined;
  const policy = source?.consentPolicy ?? "allow";
  const phone = lead.contact.phone?.number ?? null;
  const recorded = recordedKeywordConsent(lead, phone);
  const compliance =
    policy === "require"
      ? { status: "ConsentRequired" as const, blockedReason: "VerifiedConsentRequired:Unavailable" }
      : { status: "Allowed" as const, blockedReason: null };
  const settled = await recordOutcome(organizationId, lead, {
    status: "Processed",
    reason: "ConsentVerificationUnavailable",
    policy,
    compliance,
    consent: recorded ?? {
      status: "Unverified",
      optedOut: false,
      optOutAt: null,
      optInAt: null,
      phoneNumber: phone,
      verification: "Unavailable",
    },
    // Tried again later with backoff (a contact's own STOP or START needs no certificate).
    ...(recorded ? {} : { reverifyAt: firstReverificationAt() }),
  });
  if (settled) await publishTrigger(organizationId, settled, { current: true });
}

export interface ReverifyResult {
  verified: number;
  unverified: number;
  retried: number;
  gaveUp: number;
}

/**
 * Tries again the consent verification of processed leads that an outage left `Unverified` and that are due
 * (`REVERIFYLEADS#<shard>` on the dueWork index). A verified certificate or LeadiD token opts the lead in (its basis
 * stored, a `ConsentRequired` flag lifted) with a `LeadConsentVerified` event in its timeline; any other answer ends
 * the retries (the evidence says why); another outage moves the lead to its next backoff step. Each lead is claimed by
 * moving its entry first, so overlapping runs try it once. `organizationId` restricts a run (tests that move the clock).
 */
export async function reverifyDue(now = Date.now(), organizationId?: string): Promise<ReverifyResult> {
  const result: ReverifyResult = { verified: 0, unverified: 0, retried: 0, gaveUp: 0 };
  const cutoff = new Date(now).toISOString();
  for (let shard = 0; shard < pendingShards; shard++) {
    const pages = queryPages(LeadEntity.query("reverify", { shard }, { range: { below: cutoff }, limit: 100 }));
    for await (const items of pages) {
      for (const item of items) {
        if (organizationId && item.organizationId !== organizationId) continue;
        const seen = LeadEntity.indexPosition("reverify", item);
        const outcome = await reverify(item.organizationId as string, item.id as string, seen, now);
        if (outcome) result[outcome]++;
      }
    }
  }
  return result;
}

async function reverify(
  organizationId: string,
  leadId: string,
  seen: string,
  now: number,
): Promise<keyof ReverifyResult | undefined> {
  const Item = await LeadEntity.get({ organizationId, id: leadId }, { consistent: true });
  if (!Item || LeadEntity.indexPosition("reverify", Item) !== seen) return undefined;
  const lead = v.parse(LeadSchema, Item);
  const attempts = Number(Item.consentReverifyAttempts ?? 0) + 1;
  // Claimed by moving the entry to the next backoff step: a run that crashes here leaves it due again then.
  const entry = {
    organizationId,
    id: leadId,
    reverifyDueAt: new Date(now + (REVERIFY_BACKOFF_MS[attempts] ?? REVERIFY_BACKOFF_MS.at(-1)!)).toISOString(),
  };
  const next = LeadEntity.sortKey("reverify", entry);
  const claimed = await conditionally(
    table.update(
      LeadEntity.update(
        entry,
        { consentReverifyAttempts: attempts },
        { condition: LeadEntity.indexedAt("reverify", seen), enter: { reverify: entry } },
      ),
    ),
  );
  if (!claimed) return undefined;
  if (lead.metadata.smsConsentStatus !== "Unverified") {
    await finish(organizationId, leadId, next);
    return undefined;
  }
  const source = lead.sourceId ? await Sources.settings(organizationId, lead.sourceId) : undefined;
  const phone = lead.contact.phone?.number ?? null;
  let consent;
  try {
    consent = await certificateConsent(
      organizationId,
      lead,
      phone,
      source?.name ?? null,
      typeof Item.jornayaLeadId === "string" ? Item.jornayaLeadId : null,
    );
  } catch (error) {
    if (!(error instanceof ConsentVerificationUnavailable)) throw error;
    if (attempts < REVERIFY_BACKOFF_MS.length) return "retried";
    await Consent.verificationUnavailable(
      organizationId,
      leadId,
      `${error.message} (still, after ${attempts} more attempts over a day).`,
    );
    await finish(organizationId, leadId, next);
    return "gaveUp";
  }
  if (consent.status !== "OptedIn" || !consent.basis) {
    await finish(organizationId, leadId, next);
    return "unverified";
  }
  const at = nowIso();
  const transaction = new Transaction();
  transaction.add({
    Update: LeadEntity.update(
      { ...lead, organizationId },
      {
        "metadata.smsConsentStatus": "OptedIn",
        "metadata.smsOptInAt": consent.optInAt,
        "metadata.smsConsentPhoneNumber": consent.phoneNumber,
        consentBasis: consent.basis,
        modifiedAt: at,
        ...(lead.metadata.complianceStatus === "ConsentRequired"
          ? { "metadata.complianceStatus": "Allowed", "metadata.complianceBlockedReason": null }
          : {}),
      },
      {
        // Only over the Unverified it read: a STOP texted meanwhile wins.
        condition: where.all(
          LeadEntity.indexedAt("reverify", next),
          where.equals("metadata.smsConsentStatus", "Unverified"),
        ),
        leave: ["reverify"],
      },
    ),
  });
  Events.item(
    organizationId,
    {
      eventType: "LeadConsentVerified",
      eventCategory: "Lead",
      timelineCategory: "Lead",
      timelineType: "Lead",
      description: `Consent verified after the certificate API came back (attempt ${attempts}): the lead is opted in.`,
      summary: "OptedIn",
      leadId,
      ...ownerOf(lead),
      relatedEntityType: "Lead",
      relatedEntityId: leadId,
      status: "OptedIn",
      createdAt: at,
      createdBy: "system",
      actorDisplayName: "Consent verification",
    },
    transaction,
  );
  try {
    await transact(transaction);
    return "verified";
  } catch (error) {
    if (error instanceof TransactionConditionFailed) return undefined;
    throw error;
  }
}

/** Ends the lead's retries (its entry leaves the index), unless another run moved it meanwhile. */
async function finish(organizationId: string, leadId: string, claimed: string): Promise<void> {
  await conditionally(
    table.update(
      LeadEntity.update(
        { organizationId, id: leadId },
        {},
        { condition: LeadEntity.indexedAt("reverify", claimed), leave: ["reverify"] },
      ),
    ),
  );
}
