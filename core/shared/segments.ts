/**
 * SMS segment counting as carriers bill it (3GPP TS 23.038 / 23.040).
 *
 * GSM-7: 160 septets in one segment, 153 per segment once concatenated (the
 * user data header takes 7). Characters of the extension table (€ [ ] { } \ ~ ^ |
 * and form feed) are an escape plus a character, 2 septets, and a segment
 * boundary never falls between the two.
 * UCS-2 (any character outside GSM-7): 70 UTF-16 code units, 67 per segment
 * when concatenated; a character outside the Basic Multilingual Plane (most
 * emoji) is a surrogate pair of 2 units that is never split either.
 */

export type SmsEncoding = "GSM7" | "UCS2";

export type SegmentCount = {
  encoding: SmsEncoding;
  /** Billable segments; 0 for an empty body. */
  segments: number;
  /** Unicode code points in the text. */
  characters: number;
  /** Septets (GSM7) or UTF-16 code units (UCS2) the text occupies. */
  units: number;
};

const GSM7_BASIC =
  "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?" +
  "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà";
const GSM7_EXTENSION = "\f^{}\\[~]|€";

const basic = new Set(GSM7_BASIC);
const extension = new Set(GSM7_EXTENSION);

const LIMITS: Record<SmsEncoding, { single: number; concatenated: number }> = {
  GSM7: { single: 160, concatenated: 153 },
  UCS2: { single: 70, concatenated: 67 },
};

/** Septets a character takes in GSM-7, or undefined when it is not in the alphabet. */
function gsm7Cost(character: string): 1 | 2 | undefined {
  if (basic.has(character)) return 1;
  if (extension.has(character)) return 2;
  return undefined;
}

/** Greedy packing: a unit group (escape pair, surrogate pair) moves whole to the next segment. */
function pack(costs: readonly number[], perSegment: number): number {
  let segments = 1;
  let used = 0;
  for (const cost of costs) {
    if (used + cost > perSegment) {
      segments += 1;
      used = 0;
    }
    used += cost;
  }
  return segments;
}

/** Counts the segments, encoding and characters of an SMS body. */
export function countSegments(text: string): SegmentCount {
  const characters = Array.from(text);
  const septets = characters.map(gsm7Cost);
  const isGsm7 = septets.every((cost) => cost !== undefined);
  const encoding: SmsEncoding = isGsm7 ? "GSM7" : "UCS2";
  const costs = isGsm7 ? (septets as number[]) : characters.map((character) => character.length);
  const units = costs.reduce((total, cost) => total + cost, 0);
  const limit = LIMITS[encoding];
  const segments = units === 0 ? 0 : units <= limit.single ? 1 : pack(costs, limit.concatenated);
  return { encoding, segments, characters: characters.length, units };
}

/** True when every character of the text is in the GSM-7 alphabet (basic or extension). */
export function isGsm7(text: string): boolean {
  return Array.from(text).every((character) => gsm7Cost(character) !== undefined);
}
