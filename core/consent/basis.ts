import * as v from "valibot";

/** A source's consent policy: `require` a verified consent before any automated text or call, or `allow` without. */
export const consentPolicies = ["allow", "require"] as const;
export type ConsentPolicy = (typeof consentPolicies)[number];

/** What a send relies on: a verified certificate, a consent record of the business, the contact's own opt-in, or an agent's one-to-one contact. */
export const basisKinds = ["Certificate", "ConsentRecord", "InboundOptIn", "ManualOneToOne"] as const;

export const ConsentBasisSchema = v.object({
  kind: v.picklist(basisKinds),
  /** The lead's consent evidence it rests on (core/consent/evidence), null for an agent's one-to-one contact. */
  evidenceId: v.nullable(v.string()),
  /** The certificate id, or the agent's user id. */
  reference: v.nullable(v.string()),
  at: v.string(),
});
export type ConsentBasis = v.InferOutput<typeof ConsentBasisSchema>;

/** The consent a lead holds right now, as the send path reads it. */
export interface LeadConsentState {
  policy: ConsentPolicy;
  optedIn: boolean;
  optedOut: boolean;
  /** Set with smsConsentStatus OptedIn; null otherwise. */
  basis: ConsentBasis | null;
}

/** Who starts the contact: an agent (a signed-in user, one message or call at a time) or automation (API keys, automations, the system). */
export type Initiator = { kind: "Agent"; userId: string } | { kind: "Automated" };

/** A signed-in user acts one contact at a time (an agent); API keys, sources and the system are automated senders. */
export function initiatorOf(actor: { userId?: string | null | undefined }): Initiator {
  return actor.userId ? { kind: "Agent", userId: actor.userId } : { kind: "Automated" };
}

export type BasisDecision = { basis: ConsentBasis | null } | { refused: string };

/**
 * The consent basis a text or call is sent under. The lead's own basis when it is opted in; an agent's one-to-one
 * contact otherwise; none for automated contact, which a `require` policy refuses. Pure, so it is unit-tested.
 */
export function basisForContact(state: LeadConsentState | undefined, initiator: Initiator, now: string): BasisDecision {
  if (state?.optedIn && state.basis) return { basis: state.basis };
  if (initiator.kind === "Agent")
    return { basis: { kind: "ManualOneToOne", evidenceId: null, reference: initiator.userId, at: now } };
  if (state?.policy === "require") {
    return {
      refused:
        "The lead's source requires a verified consent (certificate, consent record or the contact's opt-in) before any automated text or call, and the lead has none.",
    };
  }
  return { basis: null };
}
