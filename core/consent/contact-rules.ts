/**
 * State contact rules ("mini-TCPA" laws) in one table: the local-time window in which a business may text or call a
 * consumer of that state, and how many times per 24 hours (per channel here; the statutes count attempts on the same
 * subject, and every automated contact of an organization is taken as one subject). A recipient's state is the
 * lead's address state. Where a statute's window differs by weekday, the strictest one is kept.
 * This is product behaviour, not legal advice (docs/compliance.md): each row names its source so counsel can check it.
 */
export interface StateContactRule {
  state: string;
  name: string;
  /** Local time, start inclusive, end exclusive. */
  window: { start: string; end: string };
  /** Texts (or calls) per channel per recipient in any 24 hours; null: no statutory cap. */
  maxPer24Hours: number | null;
  source: string;
}

const rules: StateContactRule[] = [
  // Florida Telephone Solicitation Act, Fla. Stat. § 501.059(8)(a) (as amended by SB 1120, 2023): 8 a.m.–8 p.m., at most 3 per 24 h on the same subject.
  {
    state: "FL",
    name: "Florida",
    window: { start: "08:00", end: "20:00" },
    maxPer24Hours: 3,
    source: "Fla. Stat. § 501.059(8)(a)",
  },
  // Oklahoma Telephone Solicitation Act of 2022, 15 O.S. § 775C.4: 8 a.m.–8 p.m., at most 3 per 24 h on the same subject.
  {
    state: "OK",
    name: "Oklahoma",
    window: { start: "08:00", end: "20:00" },
    maxPer24Hours: 3,
    source: "Okla. Stat. tit. 15 § 775C.4",
  },
  // Maryland Stop the Spam Calls Act of 2023, Md. Code, Com. Law § 14-4504: 8 a.m.–8 p.m., at most 3 per 24 h on the same subject.
  {
    state: "MD",
    name: "Maryland",
    window: { start: "08:00", end: "20:00" },
    maxPer24Hours: 3,
    source: "Md. Code, Com. Law § 14-4504",
  },
  // Washington, RCW 80.36.390(3): telephone solicitation only 8 a.m.–8 p.m.
  {
    state: "WA",
    name: "Washington",
    window: { start: "08:00", end: "20:00" },
    maxPer24Hours: null,
    source: "RCW 80.36.390",
  },
  // Texas, Tex. Bus. & Com. Code § 301.051: 9 a.m.–9 p.m. Monday–Saturday, noon–9 p.m. Sunday (the Sunday window kept for every day).
  {
    state: "TX",
    name: "Texas",
    window: { start: "12:00", end: "21:00" },
    maxPer24Hours: null,
    source: "Tex. Bus. & Com. Code § 301.051",
  },
  // Connecticut, Conn. Gen. Stat. § 42-288a(c) (as amended 2023): 9 a.m.–8 p.m.
  {
    state: "CT",
    name: "Connecticut",
    window: { start: "09:00", end: "20:00" },
    maxPer24Hours: null,
    source: "Conn. Gen. Stat. § 42-288a",
  },
];

const byState = new Map(rules.map((rule) => [rule.state, rule]));
const byName = new Map(rules.map((rule) => [rule.name.toUpperCase(), rule]));

/** The rule of a recipient's state ("FL" or "Florida"); undefined where none is kept (the national window applies). */
export function stateContactRule(state: string | null | undefined): StateContactRule | undefined {
  if (!state) return undefined;
  const key = state.trim().toUpperCase();
  return byState.get(key) ?? byName.get(key);
}

/** Every state rule (docs, tests). */
export const stateContactRules: readonly StateContactRule[] = rules;

/** The cap that applies to one recipient on one channel: the organization's and the state's, whichever is lower. */
export function contactCap(
  organizationCap: number | null,
  rule: StateContactRule | undefined,
): { max: number; source: string } | undefined {
  const state = rule?.maxPer24Hours ?? null;
  if (organizationCap === null && state === null) return undefined;
  if (state !== null && (organizationCap === null || state <= organizationCap))
    return { max: state, source: `${rule!.name} (${rule!.source})` };
  return { max: organizationCap!, source: "the organization's frequency cap" };
}

/**
 * The names a text or call records for the contact rules it passed (`complianceChecks`), so its record shows what
 * was checked, not only what stopped it: the organization's quiet hours, the state's window, the opt-out and the
 * suppression list, and each cap that applied (the organization's, the state's).
 */
export const passedCheck = {
  quietHours: "QuietHours",
  optOut: "OptOut",
  suppression: "Suppression",
  stateWindow: (rule: StateContactRule) => `StateWindow:${rule.state}`,
  caps: (organizationCap: number | null, rule: StateContactRule | undefined): string[] => [
    ...(organizationCap !== null ? ["FrequencyCap"] : []),
    ...(rule?.maxPer24Hours != null ? [`FrequencyCap:${rule.state}`] : []),
  ],
};
