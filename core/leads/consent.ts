import type { Actor } from "#core/auth/actor";
import { actorId } from "#core/auth/actor";
import * as Consent from "#core/consent/index";
import {
  basisForContact,
  type ConsentBasis,
  type ConsentEvidence,
  type ConsentPolicy,
  type ConsentRecordRequest,
  type Initiator,
  type LeadConsentState,
} from "#core/consent/index";
import { conditionally, getItem, table } from "#core/db/items";
import { LeadEntity } from "#core/db/entities/leads";
import { where } from "#core/db/expression";
import { keys } from "#core/db/keys";
import { NotFoundError, UnprocessableError } from "#core/errors";
import { nowIso } from "#core/shared/ids";

/** A change of a lead's SMS consent, from an inbound keyword (spec 2.4 consent fields). */
export type ConsentChange =
  | { kind: "OptOut"; at: string; phoneNumber: string }
  | { kind: "OptIn"; at: string; phoneNumber: string }
  | { kind: "Help"; at: string };

/**
 * Updates a lead's consent fields (metadata.smsOptedOut, smsOptOutAt,
 * smsConsentStatus, smsOptInAt, smsHelpRequestedAt, smsConsentPhoneNumber) in
 * place, without touching the rest of the lead. Used by messaging when a
 * contact texts STOP, START or HELP. An opt-in or opt-out is also kept as the
 * lead's consent evidence, and an opt-in becomes the basis its sends rely on
 * (an opt-out removes it). A lead that no longer exists is ignored.
 */
export async function recordLeadConsent(organizationId: string, leadId: string, change: ConsentChange): Promise<void> {
  if (change.kind === "Help") return writeConsent(organizationId, leadId, change.at, { smsHelpRequestedAt: change.at });
  const evidence = await Consent.addEvidence(organizationId, {
    leadId,
    kind: change.kind === "OptIn" ? "InboundOptIn" : "OptOut",
    at: change.at,
    outcome: null,
    reason: null,
    certificate: null,
    record: null,
    recordedBy: `contact:${change.phoneNumber}`,
    text: null,
  });
  if (change.kind === "OptOut") {
    return writeConsent(
      organizationId,
      leadId,
      change.at,
      {
        smsOptedOut: true,
        smsOptOutAt: change.at,
        smsConsentStatus: "OptedOut",
        smsConsentPhoneNumber: change.phoneNumber,
      },
      null,
    );
  }
  const basis: ConsentBasis = {
    kind: "InboundOptIn",
    evidenceId: evidence.id,
    reference: change.phoneNumber,
    at: change.at,
  };
  return writeConsent(
    organizationId,
    leadId,
    change.at,
    {
      smsOptedOut: false,
      smsOptInAt: change.at,
      smsConsentStatus: "OptedIn",
      smsConsentPhoneNumber: change.phoneNumber,
    },
    basis,
  );
}

/**
 * `POST /leads/{id}/consent`: the business records a consent it collected itself, with its evidence. The lead is
 * opted in with that record as its basis, unless the contact opted out since (an opt-out is the contact's own word;
 * only the contact's START undoes it).
 */
export async function recordConsentEvidence(
  actor: Actor,
  leadId: string,
  request: ConsentRecordRequest,
): Promise<ConsentEvidence> {
  const item = await getItem(keys.lead(actor.organizationId, leadId), { consistent: true });
  if (!item) throw new NotFoundError("Lead", leadId);
  const metadata = (item.metadata ?? {}) as Record<string, unknown>;
  const phone = (item.contact as { phone?: { number?: string } | null } | undefined)?.phone?.number ?? null;
  const evidence = await Consent.addEvidence(actor.organizationId, {
    leadId,
    kind: "ConsentRecord",
    at: nowIso(),
    outcome: null,
    reason: null,
    certificate: null,
    record: {
      ...request,
      evidenceUrl: request.evidenceUrl ?? null,
      pageUrl: request.pageUrl ?? null,
      ipAddress: request.ipAddress ?? null,
    },
    recordedBy: actorId(actor),
    text: null,
  });
  if (metadata.smsOptedOut === true) return evidence;
  const basis: ConsentBasis = {
    kind: "ConsentRecord",
    evidenceId: evidence.id,
    reference: null,
    at: request.capturedAt,
  };
  await writeConsent(
    actor.organizationId,
    leadId,
    evidence.at,
    { smsOptedOut: false, smsOptInAt: request.capturedAt, smsConsentStatus: "OptedIn", smsConsentPhoneNumber: phone },
    basis,
  );
  return evidence;
}

/** What the send path needs: the policy the lead arrived under, and the consent it holds now. */
export async function leadConsentState(organizationId: string, leadId: string): Promise<LeadConsentState | undefined> {
  const item = await getItem(keys.lead(organizationId, leadId), {
    consistent: true,
    attributes: ["metadata", "consentPolicy", "consentBasis"],
  });
  return item ? consentStateOf(item) : undefined;
}

/** The consent state a lead's stored item holds. */
export function consentStateOf(item: Record<string, unknown>): LeadConsentState {
  const metadata = (item.metadata ?? {}) as Record<string, unknown>;
  return {
    policy: (item.consentPolicy as ConsentPolicy | undefined) ?? "allow",
    optedIn: metadata.smsConsentStatus === "OptedIn" && metadata.smsOptedOut !== true,
    optedOut: metadata.smsOptedOut === true,
    basis: (item.consentBasis as ConsentBasis | null | undefined) ?? null,
  };
}

/**
 * The consent basis a text or call is sent under (core/consent/basis.ts): the lead's when it is opted in, an agent's
 * one-to-one contact, or none. Automated contact of a lead whose source requires a verified consent it lacks is
 * refused (UnprocessableError, a 422 at the edge): never sent, never silently dropped.
 */
export async function consentBasisForContact(
  organizationId: string,
  leadId: string | null | undefined,
  initiator: Initiator,
  /** The lead's item as the caller read it already (the send reads it with its wallet): not read again. */
  leadItem?: Record<string, unknown>,
): Promise<ConsentBasis | null> {
  const state =
    leadItem && leadItem.id === leadId
      ? consentStateOf(leadItem)
      : leadId
        ? await leadConsentState(organizationId, leadId)
        : undefined;
  const decision = basisForContact(state, initiator, nowIso());
  if ("refused" in decision) throw new UnprocessableError(decision.refused);
  return decision.basis;
}

/** Sets consent fields of the lead's metadata (and its consent basis when given) in one conditional update. */
async function writeConsent(
  organizationId: string,
  leadId: string,
  at: string,
  fields: Record<string, unknown>,
  basis?: ConsentBasis | null,
): Promise<void> {
  const changes: Record<string, unknown> = Object.fromEntries(
    Object.entries(fields).map(([field, value]) => [`metadata.${field}`, value]),
  );
  if (basis !== undefined) changes.consentBasis = basis;
  // Only consent fields of the metadata change: the price it is listed by is not among them.
  const lead = { organizationId, id: leadId };
  await conditionally(
    table.update(
      LeadEntity.update(
        lead,
        { ...changes, modifiedAt: at },
        { condition: where.all(where.stored(), where.isMap("metadata")) },
      ),
    ),
  );
}
