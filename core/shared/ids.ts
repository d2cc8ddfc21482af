import { createHash } from "node:crypto";
import { encodeTime, monotonicFactory, TIME_MAX } from "ulid";
import * as v from "valibot";

const nextUlid = monotonicFactory();

/** Opaque, time-sortable identifier (ULID). */
export function newId(): string {
  return nextUlid();
}

/** Crockford's base32, the alphabet of a ULID. */
const ULID_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/**
 * The id of something `base` (a ULID) causes once, like the SMS an event sends: a ULID of `base`'s millisecond whose
 * random part is a hash of `base` and `purpose`, so reading the cause again yields the same id (a conditional create
 * then finds the first one) and the id still sorts by time.
 */
export function derivedId(base: string, purpose: string): string {
  const digest = createHash("sha256").update(`${base}\u0000${purpose}`).digest();
  let random = "";
  for (let index = 0; index < 16; index++) random += ULID_ALPHABET[digest[index]! & 31];
  return `${base.slice(0, 10)}${random}`;
}

/** Current time as ISO 8601 UTC with milliseconds, the format of every stored timestamp. */
export function nowIso(now: Date = new Date()): string {
  return now.toISOString();
}

/** The smallest ULID of a millisecond (its time part followed by zeros); times outside ULID's range are clamped. */
export function ulidFloor(epochMs: number): string {
  return `${ulidTime(epochMs)}0000000000000000`;
}

/** The largest ULID of a millisecond, an inclusive upper bound of a sort-key range over ULIDs. */
export function ulidCeiling(epochMs: number): string {
  return `${ulidTime(epochMs)}ZZZZZZZZZZZZZZZZ`;
}

function ulidTime(epochMs: number): string {
  return encodeTime(Math.min(Math.max(Math.floor(epochMs), 0), TIME_MAX), 10);
}

/** An instant as the API writes them (`nowIso`): `format: date-time` in the contract. */
export const timestamp = v.pipe(
  v.string(),
  v.isoTimestamp("Must be an ISO 8601 date-time, e.g. 2026-01-01T00:00:00Z."),
);

/** A whole count or version number: `integer` in the contract. */
export const wholeNumber = v.pipe(v.number(), v.integer());
