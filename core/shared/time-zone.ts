import * as v from "valibot";

/** An IANA time zone name the runtime knows (`America/New_York`): a user's, an organization's. */
export const TimeZoneSchema = v.pipe(
  v.string(),
  v.maxLength(64, "Must be at most 64 characters."),
  v.check((zone) => {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: zone });
      return true;
    } catch {
      return false;
    }
  }, "Must be an IANA time zone, e.g. America/New_York."),
);
