import { monotonicFactory } from "ulid";

const nextUlid = monotonicFactory();

/** Opaque, time-sortable identifier (ULID). */
export function newId(): string {
  return nextUlid();
}

/** Current time as ISO 8601 UTC with milliseconds, the format of every stored timestamp. */
export function nowIso(now: Date = new Date()): string {
  return now.toISOString();
}
