import type { Actor } from "#core/auth/actor";
import {
  readVerifications,
  shownVerification as shown,
  stored,
  tollFreeVerifications,
  type StoredVerification,
} from "#core/carrier-registration/reads";
import { conditionally, table } from "#core/db/items";
import { transact } from "#core/db/transact";
import { keys } from "#core/db/keys";
import { TollFreeVerificationEntity } from "#core/db/entities/carrier-registration";
import { where } from "#core/db/expression";
import { ConflictError, NotFoundError, UnprocessableError } from "#core/errors";
import * as PhoneNumbers from "#core/messaging/phone-numbers";
import { parsePhone } from "#core/shared/phone";
import type { TollFreeDetails, TollFreeReport } from "#core/providers/registration";
import { newId, nowIso } from "#core/shared/ids";
import type { TollFreeVerification, TollFreeVerificationRequest } from "#core/carrier-registration/schemas";
import {
  atCarrier,
  beginSubmission,
  markPending,
  readBrand,
  recordUpdate,
  registrarByName,
  submitOnce,
} from "#core/carrier-registration/shared";

/** The poll's pending index entry of a number's verification. */
const pendingKey = (phoneNumberId: string) => `TOLLFREE#${phoneNumberId}`;

/**
 * Toll-free verification (TFV) of the organization's toll-free numbers: carriers carry A2P texts from an 8XX number
 * once the toll-free aggregator verified the business and its use, not on a 10DLC campaign. One verification per
 * number, submitted at the brand's carrier with the brand's business details, decided by the same refresh and poll
 * as the brand and campaigns, and copied onto the number's `registration` (kind TollFreeVerification), which is what
 * gates its sends.
 */

/**
 * `POST /phone-numbers/{phoneNumberId}/toll-free-verification`: submitted like a brand (the submission stored
 * first under the Idempotency-Key's id, so a retry after a crash asks the carrier what it created). Again only
 * after a rejection.
 */
export async function submit(
  actor: Actor,
  phoneNumberId: string,
  input: TollFreeVerificationRequest,
  submissionId: string = newId(),
): Promise<TollFreeVerification> {
  const organizationId = actor.organizationId;
  const [number, held, existing, brand] = await Promise.all([
    PhoneNumbers.fromId(actor, phoneNumberId),
    PhoneNumbers.atCarrier(organizationId, phoneNumberId),
    readVerification(organizationId, phoneNumberId),
    readBrand(organizationId),
  ]);
  if (!held) throw new NotFoundError("Phone number", phoneNumberId);
  if (existing?.submissionId === submissionId) return shown(existing); // the same request again: its answer was lost
  if (!parsePhone(number.phoneNumber)?.tollFree)
    throw new UnprocessableError(
      `${number.phoneNumber} is not a toll-free number (800, 833, 844, 855, 866, 877, 888): a long code sends on a 10DLC campaign (PUT /phone-numbers/${phoneNumberId}/campaign).`,
    );
  if (existing && existing.status !== "Rejected")
    throw new ConflictError(
      `The number's toll-free verification is already ${existing.status}; only a rejected one is submitted again.`,
    );
  if (!brand || brand.status === "Rejected")
    throw new ConflictError(
      brand
        ? "The organization's brand was rejected: correct and submit it again (POST /carrier-registration/brand), then verify the number with the same business details."
        : "Register the organization's brand first (POST /carrier-registration/brand): a toll-free verification submits the same business details.",
    );
  if (held.provider && held.provider !== brand.provider)
    throw new UnprocessableError(
      `${number.phoneNumber} is held at ${held.provider}, the brand is registered at ${brand.provider}.`,
    );
  const registrar = registrarByName(brand.provider);
  const submissionKey = keys.tollFreeSubmission(organizationId, phoneNumberId);
  const submission = await beginSubmission(submissionKey, submissionId, brand.provider, input);
  const details = (use: TollFreeVerificationRequest): TollFreeDetails => ({
    ...use,
    number: held,
    business: { ...brand, country: "US" }, // brands are US-only (BrandRequestSchema)
    brandReference: brand.providerBrandId,
  });
  const { report, details: sent } = await submitOnce(
    submissionKey,
    submission,
    () =>
      registrar.findTollFree(
        details(submission.details),
        submission.reference,
        existing ? [existing.providerVerificationId] : [],
        submission.startedAt,
      ),
    () => registrar.submitTollFree(details(input), submission.reference),
    input,
  );
  const now = nowIso();
  const verification: StoredVerification = applyReport(
    {
      phoneNumberId,
      phoneNumber: number.phoneNumber,
      ...sent,
      additionalInformation: sent.additionalInformation ?? null,
      submissionId: submission.reference,
      provider: brand.provider,
      providerVerificationId: report.reference,
      status: "Pending",
      failureReason: null,
      errorCode: null,
      editAllowed: null,
      submittedAt: now,
      decidedAt: null,
      checkedAt: null,
    },
    report,
    now,
  );
  await transact([
    { Put: TollFreeVerificationEntity.put({ organizationId, ...verification }) },
    { Delete: { Key: submissionKey } },
  ]);
  await settled(organizationId, verification);
  return shown(verification);
}

/** `GET /phone-numbers/{phoneNumberId}/toll-free-verification`. */
export async function get(actor: Actor, phoneNumberId: string): Promise<TollFreeVerification> {
  await PhoneNumbers.fromId(actor, phoneNumberId);
  const verification = await readVerification(actor.organizationId, phoneNumberId);
  if (!verification) throw new NotFoundError("Toll-free verification", `of phone number ${phoneNumberId}`);
  return shown(verification);
}

/** The organization's verifications as stored (the registration overview). */
export { tollFreeVerifications as all };

/**
 * Asks the carrier about every verification not rejected (an approved one too: a carrier may revoke it, and the
 * number must stop sending then), recording each change and copying it onto the number.
 */
export async function refresh(organizationId: string): Promise<TollFreeVerification[]> {
  const now = nowIso();
  const refreshed = await Promise.all(
    (await readVerifications(organizationId)).map(async (verification) => {
      if (verification.status === "Rejected") return verification;
      const report = await atCarrier(() =>
        registrarByName(verification.provider).fetchTollFree(verification.providerVerificationId),
      );
      const decided = applyReport(verification, report, now);
      const { status, failureReason, errorCode, editAllowed, decidedAt } = decided;
      // Conditional on the verification read: a resubmission meanwhile replaced it, and keeps its own status (on
      // the verification and on the number, whose registration gates its sends).
      const applied = await conditionally(
        table.update(
          TollFreeVerificationEntity.update(
            { organizationId, phoneNumberId: verification.phoneNumberId },
            { status, failureReason, errorCode, editAllowed, decidedAt, checkedAt: now },
            { condition: where.equals("providerVerificationId", verification.providerVerificationId) },
          ),
        ),
      );
      if (!applied) return verification;
      await settled(organizationId, decided, verification.status);
      return decided;
    }),
  );
  return refreshed.map(shown);
}

/** A verification's status taken to the poll's index, the event log (on a change) and its number. */
async function settled(
  organizationId: string,
  verification: TollFreeVerification,
  previous?: TollFreeVerification["status"],
): Promise<void> {
  await markPending(organizationId, pendingKey(verification.phoneNumberId), verification.status !== "Rejected");
  if (previous !== undefined && previous !== verification.status)
    await recordUpdate(
      organizationId,
      "TollFreeVerification",
      verification.phoneNumberId,
      `The toll-free verification of ${verification.phoneNumber}`,
      verification,
    );
  // A number deleted meanwhile is left alone (the write is conditional on it): its verification stays on record.
  await PhoneNumbers.setRegistration(organizationId, verification.phoneNumberId, {
    kind: "TollFreeVerification",
    campaignId: null,
    status: verification.status,
  });
}

function applyReport<T extends TollFreeVerification>(verification: T, report: TollFreeReport, now: string): T {
  const rejected = report.status === "Rejected";
  return {
    ...verification,
    status: report.status,
    failureReason: rejected
      ? (report.failureReason ?? "The toll-free reviewers refused the verification without a reason.")
      : null,
    errorCode: rejected ? (report.errorCode ?? null) : null,
    editAllowed: rejected ? (report.editAllowed ?? false) : null,
    decidedAt: report.status !== "Pending" ? now : null,
    checkedAt: now,
  };
}

async function readVerification(
  organizationId: string,
  phoneNumberId: string,
): Promise<StoredVerification | undefined> {
  const item = await TollFreeVerificationEntity.get({ organizationId, phoneNumberId }, { consistent: true });
  return item ? stored(item) : undefined;
}
