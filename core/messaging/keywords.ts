/**
 * Compliance keywords of inbound SMS (CTIA / carrier rules, the set Twilio's
 * Advanced Opt-Out recognises, and the words the FCC's 2024 revocation order
 * (FCC 24-24, 47 CFR 64.1200(a)(10)) names as revoking consent: stop, quit,
 * end, revoke, opt out, cancel, unsubscribe). The whole message must be the
 * keyword: case-insensitive, surrounding whitespace and punctuation ignored
 * ("Stop." is an opt-out); free text that asks to stop ("please stop texting
 * me") is flagged for review (`revocationInFreeText`).
 */

export type InboundKind = "OptOut" | "OptIn" | "Help" | "Message";

export const OPT_OUT_KEYWORDS = [
  "STOP",
  "STOPALL",
  "UNSUBSCRIBE",
  "CANCEL",
  "END",
  "QUIT",
  "REVOKE",
  "OPTOUT",
  "OPT OUT",
] as const;
export const OPT_IN_KEYWORDS = ["START", "UNSTOP", "YES"] as const;
export const HELP_KEYWORDS = ["HELP", "INFO"] as const;

const kindByKeyword = new Map<string, Exclude<InboundKind, "Message">>([
  ...OPT_OUT_KEYWORDS.map((keyword): [string, "OptOut"] => [keyword, "OptOut"]),
  ...OPT_IN_KEYWORDS.map((keyword): [string, "OptIn"] => [keyword, "OptIn"]),
  ...HELP_KEYWORDS.map((keyword): [string, "Help"] => [keyword, "Help"]),
]);

/** The keyword form of a body: trimmed, upper-cased, outer punctuation dropped. */
function keywordOf(body: string): string {
  return body
    .normalize("NFKC")
    .trim()
    .replace(/^[\p{P}\p{S}\s]+|[\p{P}\p{S}\s]+$/gu, "")
    .toUpperCase();
}

/** An organization's own keywords, on top of the standard ones (which they can never replace). */
export type ExtraKeywords = { optOut: readonly string[]; optIn: readonly string[]; help: readonly string[] };

/**
 * Classifies an inbound SMS body; `keyword` is the matched keyword for
 * compliance records. The standard keywords win; an organization's extra ones
 * (`extra`, compared in the same keyword form) come next.
 */
export function classifyInbound(body: string, extra?: ExtraKeywords): { kind: InboundKind; keyword?: string } {
  const keyword = keywordOf(body);
  const kind = kindByKeyword.get(keyword) ?? (extra ? extraKind(keyword, extra) : undefined);
  return kind === undefined ? { kind: "Message" } : { kind, keyword };
}

function extraKind(keyword: string, extra: ExtraKeywords): Exclude<InboundKind, "Message"> | undefined {
  const has = (list: readonly string[]) => list.some((candidate) => keywordOf(candidate) === keyword);
  if (has(extra.optOut)) return "OptOut";
  if (has(extra.optIn)) return "OptIn";
  if (has(extra.help)) return "Help";
  return undefined;
}

/** The keyword form of an organization's extra keyword (what is stored and compared). */
export const normalizeKeyword = keywordOf;

/**
 * Free text that reads as a request to stop ("please stop texting me", "don't call me again", "take me off your
 * list"): the FCC order lets a consumer revoke by any reasonable means, so such a message is flagged for a person to
 * review (not acted on automatically: "stop by tomorrow" is not a revocation).
 */
const revocationPatterns = [
  /\b(?:stop|quit|cease)\s+(?:texting|messaging|calling|contacting|sending)\b/i,
  /\b(?:do\s*n[o']?t|never)\s+(?:text|message|call|contact)\s+(?:me|us|this)\b/i,
  /\b(?:take|remove)\s+me\s+off\b|\bremove\s+(?:me|my\s+number)\s+from\b/i,
  /\b(?:opt|unsubscribe)\s*(?:-\s*)?(?:out|me)\b/i,
];

export function revocationInFreeText(body: string): boolean {
  const text = body.normalize("NFKC");
  return revocationPatterns.some((pattern) => pattern.test(text));
}
