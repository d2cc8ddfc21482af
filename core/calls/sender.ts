import type { PhoneNumber } from "#core/messaging/phone-numbers";
import { senderPool } from "#core/messaging/sender-registration";
import type { SenderSelectionReason as CallerSelectionReason } from "#core/shared/enums";
import { parsePhone } from "#core/shared/phone";

export type { CallerSelectionReason };

/**
 * The calling number, by the messaging sender rule restricted to voice-capable
 * numbers: the caller's choice; else the conversation's sticky number; else, of
 * the agent's own numbers or the shared pool (`senderPool`), one with the
 * recipient's area code, else any; ties to the least recently used.
 * An override that is unknown or cannot call is a 400 at the HTTP edge (checked by the caller).
 */
export function selectCaller(input: {
  numbers: PhoneNumber[];
  to: string;
  overrideId: string | undefined;
  stickyId: string | null;
  /** The agent of the call's conversation: their own numbers call for them (`senderPool`). */
  agent?: string | null;
}): { number: PhoneNumber; reason: CallerSelectionReason } | undefined {
  const voice = input.numbers.filter((number) => number.capabilities.includes("voice"));
  const find = (id: string | null | undefined) => (id ? voice.find((number) => number.id === id) : undefined);
  const override = find(input.overrideId);
  if (override) return { number: override, reason: "ManualOverride" };
  const sticky = find(input.stickyId);
  if (sticky) return { number: sticky, reason: "StickyConversation" };
  const { pool: allowed, theirs } = senderPool(voice, input.agent);
  const areaCode = parsePhone(input.to)?.areaCode;
  const local = allowed.filter((number) => areaCode !== undefined && number.areaCode === areaCode);
  const pool = local.length ? local : allowed;
  const chosen = [...pool].sort(
    (a, b) => (a.lastUsedAt ?? "").localeCompare(b.lastUsedAt ?? "") || a.createdAt.localeCompare(b.createdAt),
  )[0];
  if (!chosen) return undefined;
  return { number: chosen, reason: theirs ? "AgentNumber" : local.length ? "AreaCodeMatch" : "LeastRecentlyUsed" };
}
