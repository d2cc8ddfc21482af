import type { PhoneNumber } from "#core/messaging/phone-numbers";
import type { SenderSelectionReason as CallerSelectionReason } from "#core/shared/enums";
import { parsePhone } from "#core/shared/phone";

export type { CallerSelectionReason };

/**
 * The calling number, by the messaging sender rule restricted to voice-capable
 * numbers: the caller's choice; else the conversation's sticky number; else one
 * with the recipient's area code, else any; ties to the least recently used.
 * An override that is unknown or cannot call is a 400 at the HTTP edge (checked by the caller).
 */
export function selectCaller(input: {
  numbers: PhoneNumber[];
  to: string;
  overrideId: string | undefined;
  stickyId: string | null;
}): { number: PhoneNumber; reason: CallerSelectionReason } | undefined {
  const voice = input.numbers.filter((number) => number.capabilities.includes("voice"));
  const find = (id: string | null | undefined) => (id ? voice.find((number) => number.id === id) : undefined);
  const override = find(input.overrideId);
  if (override) return { number: override, reason: "ManualOverride" };
  const sticky = find(input.stickyId);
  if (sticky) return { number: sticky, reason: "StickyConversation" };
  const areaCode = parsePhone(input.to)?.areaCode;
  const local = voice.filter((number) => areaCode !== undefined && number.areaCode === areaCode);
  const pool = local.length ? local : voice;
  const chosen = [...pool].sort(
    (a, b) => (a.lastUsedAt ?? "").localeCompare(b.lastUsedAt ?? "") || a.createdAt.localeCompare(b.createdAt),
  )[0];
  return chosen ? { number: chosen, reason: local.length ? "AreaCodeMatch" : "LeastRecentlyUsed" } : undefined;
}
