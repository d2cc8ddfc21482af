/**
 * Compliance keywords of inbound SMS (CTIA / carrier rules, the same set
 * Twilio's Advanced Opt-Out recognises). The whole message must be the keyword:
 * case-insensitive, surrounding whitespace and punctuation ignored ("Stop." is
 * an opt-out, "stop texting me" is an ordinary message to read).
 */

export type InboundKind = "OptOut" | "OptIn" | "Help" | "Message";

export const OPT_OUT_KEYWORDS = ["STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT"] as const;
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
