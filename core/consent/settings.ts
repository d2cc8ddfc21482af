import * as v from "valibot";
import type { Actor } from "#core/auth/actor";
import { copyFor, putEveryCopy, storedForChange } from "#core/db/copies";
import { getItem, oneItem, readAlone, type PlannedRead } from "#core/db/items";
import { entities, keys } from "#core/db/keys";
import { nowIso, timestamp } from "#core/shared/ids";
import { maxChars } from "#core/shared/validation";

const cap = v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100)));
/** Contacts per recipient per channel in any 24 hours (null: no cap of the organization's own; state caps still apply). */
export const FrequencyCapsSchema = v.strictObject({ smsPerDay: cap, callsPerDay: cap });
export type FrequencyCaps = v.InferOutput<typeof FrequencyCapsSchema>;
const NO_CAPS: FrequencyCaps = { smsPerDay: null, callsPerDay: null };

/**
 * Body of `PUT /consent/settings`: the organization's own certificate-API accounts and caps. A field left out keeps
 * what is stored (the secrets are never answered, so a client cannot send them back); `null` removes an account.
 */
export const ConsentSettingsRequestSchema = v.strictObject({
  trustedForm: v.optional(
    v.nullable(
      v.strictObject({
        apiKey: v.pipe(
          v.string(),
          v.trim(),
          v.minLength(8),
          maxChars(200),
          v.description(
            "The API key of the organization's TrustedForm account (Settings tab); stored as a secret, never answered.",
          ),
        ),
      }),
    ),
  ),
  jornaya: v.optional(
    v.nullable(
      v.strictObject({
        accountCode: v.pipe(
          v.string(),
          v.trim(),
          v.minLength(1),
          maxChars(100),
          v.description(
            "The organization's Jornaya (Verisk) account code, for LeadiD token checks; stored as a secret, never answered.",
          ),
        ),
      }),
    ),
  ),
  frequencyCaps: v.optional(FrequencyCapsSchema),
});
export type ConsentSettingsRequest = v.InferOutput<typeof ConsentSettingsRequestSchema>;

/** The settings as every read answers them: which accounts are configured, never their secrets. */
export const ConsentSettingsSchema = v.object({
  trustedForm: v.nullable(v.object({ apiKeyPreview: v.string() })),
  jornaya: v.nullable(v.object({ accountCodePreview: v.string() })),
  frequencyCaps: FrequencyCapsSchema,
  modifiedAt: v.nullable(timestamp),
});
export type ConsentSettings = v.InferOutput<typeof ConsentSettingsSchema>;

/** The stored credentials, for the verification itself. */
export interface ConsentCredentials {
  trustedFormApiKey: string | null;
  jornayaAccountCode: string | null;
}

/** The organization's own frequency caps (the send path reads them with each text and call). */
export async function frequencyCaps(organizationId: string): Promise<FrequencyCaps> {
  return readAlone(frequencyCapsRead(organizationId));
}

/**
 * The read of the frequency caps, for a batch with other reads (`readTogether`), from the settings' copy for `by`
 * (a message id; any copy when it names nothing: core/db/copies.ts).
 */
export const frequencyCapsRead = (organizationId: string, by?: string): PlannedRead<FrequencyCaps> =>
  oneItem(
    keys.consentSettings(organizationId, copyFor(by)),
    (item) => (item?.frequencyCaps as FrequencyCaps | undefined) ?? NO_CAPS,
  );

/** The settings as stored (any copy: they never differ). */
const storedSettings = (organizationId: string) => getItem(keys.consentSettings(organizationId, copyFor()));

/** Per-organization accounts of the certificate APIs (docs/compliance.md): each organization claims with its own key. */

export async function read(actor: Actor): Promise<ConsentSettings> {
  return toSettings(await storedSettings(actor.organizationId));
}

/** `PUT /consent/settings`: sets what the body names and keeps the rest (the stored secrets above all). */
export async function update(actor: Actor, input: ConsentSettingsRequest): Promise<ConsentSettings> {
  const organizationId = actor.organizationId;
  const stored = await storedForChange(organizationId, (copy) => keys.consentSettings(organizationId, copy));
  // Left out: what is stored; null: removed.
  const item = {
    entity: entities.consentSettings,
    trustedFormApiKey:
      input.trustedForm === undefined ? (stored?.trustedFormApiKey ?? null) : (input.trustedForm?.apiKey ?? null),
    jornayaAccountCode:
      input.jornaya === undefined ? (stored?.jornayaAccountCode ?? null) : (input.jornaya?.accountCode ?? null),
    frequencyCaps: input.frequencyCaps ?? (stored?.frequencyCaps as FrequencyCaps | undefined) ?? NO_CAPS,
    modifiedAt: nowIso(),
  };
  // Each copy holds its identity (its organization and number), as the price list's do.
  await putEveryCopy("settings", (copy) => ({
    Item: { ...keys.consentSettings(organizationId, copy), ...item, organizationId, copy },
  }));
  return toSettings(item);
}

export async function credentials(organizationId: string): Promise<ConsentCredentials> {
  const item = await storedSettings(organizationId);
  return {
    trustedFormApiKey: (item?.trustedFormApiKey as string | null) ?? null,
    jornayaAccountCode: (item?.jornayaAccountCode as string | null) ?? null,
  };
}

function toSettings(item: Record<string, unknown> | undefined): ConsentSettings {
  const apiKey = (item?.trustedFormApiKey as string | null | undefined) ?? null;
  const accountCode = (item?.jornayaAccountCode as string | null | undefined) ?? null;
  return {
    trustedForm: apiKey ? { apiKeyPreview: preview(apiKey) } : null,
    jornaya: accountCode ? { accountCodePreview: preview(accountCode) } : null,
    frequencyCaps: (item?.frequencyCaps as FrequencyCaps | undefined) ?? NO_CAPS,
    modifiedAt: (item?.modifiedAt as string | undefined) ?? null,
  };
}

/**
 * What a read shows of a credential: enough to tell which account is configured, never enough to use it: at most its
 * first 4 characters and never more than a quarter of it (a short code shows nothing but the ellipsis).
 */
function preview(secret: string): string {
  return `${secret.slice(0, Math.min(4, Math.floor(secret.length / 4)))}…`;
}
