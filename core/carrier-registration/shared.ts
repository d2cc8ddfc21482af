import { putIfNew, table } from "#core/db/items";
import { entities, keys } from "#core/db/keys";
import { CarrierUnavailableError, UnprocessableError } from "#core/errors";
import { recordEvent } from "#core/events/index";
import { registeringProvider } from "#core/providers/registrars";
import { ProviderError } from "#core/providers/port";
import type { TenDlcRegistrar } from "#core/providers/registration";
import { nowIso } from "#core/shared/ids";

// What the 10DLC and toll-free registrations share: a submission stored before the carrier is asked (kill-safe,
// never billed twice), the poll's pending index, the decision's event, and the carrier's errors as ours.

/** A submission to the registry, as stored before the carrier is asked; `resumed`: an earlier attempt stored it. */
export type Submission<T> = { reference: string; provider: string; details: T; resumed: boolean; startedAt: string };

/** Stores a submission, or answers the one an earlier attempt left (cut short between the carrier and our write). */
export async function beginSubmission<T extends object>(
  key: { pk: string; sk: string },
  reference: string,
  provider: string,
  details: T,
): Promise<Submission<T>> {
  const fresh = { reference, provider, details, startedAt: nowIso() };
  if (await putIfNew({ ...key, entity: entities.tenDlcSubmission, ...fresh })) return { ...fresh, resumed: false };
  const { Item } = await table.get({ Key: key, ConsistentRead: true });
  if (!Item) return beginSubmission(key, reference, provider, details); // finished meanwhile by that attempt
  return {
    reference: String(Item.reference),
    provider: String(Item.provider),
    details: Item.details as T,
    resumed: true,
    startedAt: String(Item.startedAt),
  };
}

/**
 * The carrier's answer to a submission: for a resumed one, first what the earlier attempt created (with the details
 * it sent), else a new submission of `input` under the same reference. A refusal of what was sent (422) removes the
 * submission: nothing was created, the next attempt starts afresh; a failure (502) keeps it, to be looked up.
 */
export async function submitOnce<T, R>(
  key: { pk: string; sk: string },
  submission: Submission<T>,
  find: () => Promise<R | undefined>,
  register: () => Promise<R>,
  input: T,
): Promise<{ report: R; details: T }> {
  try {
    const found = submission.resumed ? await atCarrier(find) : undefined;
    if (found) return { report: found, details: submission.details };
    return { report: await atCarrier(register), details: input };
  } catch (error) {
    if (error instanceof UnprocessableError) await table.delete({ Key: key });
    throw error;
  }
}

/** The `CarrierRegistrationUpdated` event of a decision (webhook `carrier_registration.updated`). */
export async function recordUpdate(
  organizationId: string,
  relatedEntityType: "TenDlcBrand" | "TenDlcCampaign" | "TollFreeVerification",
  relatedEntityId: string,
  what: string,
  decided: { status: string; failureReason: string | null },
): Promise<void> {
  await recordEvent(organizationId, {
    eventType: "CarrierRegistrationUpdated",
    eventCategory: "CarrierRegistration",
    description: `${what} is ${decided.status}${decided.failureReason ? `: ${decided.failureReason}` : "."}`,
    relatedEntityType,
    relatedEntityId,
    statusReason: decided.status,
  });
}

// Moved to reads.ts (no carrier code), kept here under the same names for the verbs that import them.
export { readBrand, strip } from "#core/carrier-registration/reads";

/** Keeps the poll's index of pending registrations in step with one registration. */
export async function markPending(organizationId: string, what: string, pending: boolean): Promise<void> {
  const key = keys.tenDlcPending(organizationId, what);
  if (pending) await table.put({ Item: { ...key, entity: entities.tenDlcPending, organizationId } });
  else await table.delete({ Key: key });
}

/** The registrar of the carrier a brand or campaign was registered at (it stays there if the organization changes provider). */
export function registrarByName(name: string): TenDlcRegistrar {
  const registrar = registeringProvider(name)?.registration;
  if (!registrar)
    throw new CarrierUnavailableError(
      `The ${name} provider the registration was made at is not configured on this deployment.`,
    );
  return registrar;
}

/**
 * A registry request on behalf of an API call: the carrier refusing what was
 * sent (a 4xx it explains) is a 422 saying why; the carrier failing or refusing
 * us (down, credentials) is a 502, nothing stored.
 */
export async function atCarrier<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    const status = error.details.httpStatus;
    if (error.kind === "permanent" && status !== undefined && status < 500 && status !== 401 && status !== 403) {
      throw new UnprocessableError(`The carrier refused the registration: ${error.message} (${error.code}).`);
    }
    throw new CarrierUnavailableError(
      `The carrier could not complete the request: ${error.message} (${error.code}). Nothing was changed; try again.`,
    );
  }
}
