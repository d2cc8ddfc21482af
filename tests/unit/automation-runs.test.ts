import { describe, expect, it } from "vitest";
import * as v from "valibot";
import { ConditionGroupSchema, renderTemplate, templatePathProblem } from "#core/automations/definition";
import { nextWallClock } from "#core/automations/runs/actions";
import { targetRefusal } from "#core/automations/runs/egress";
import { nextFireAt } from "#core/automations/runs/cron";
import {
  assignedUserValues,
  evaluateGroup,
  leadValue,
  pickWeighted,
  type EvaluationContext,
} from "#core/automations/runs/evaluate";
import { routeFrom } from "#core/automations/runs/route";
import { runIdOf } from "#core/automations/runs/store";
import { decodeTime } from "ulid";
import type { Lead } from "#core/leads/index";

const lead = {
  id: "01LEAD",
  createdAt: "2030-01-07T14:00:00.000Z",
  contact: {
    firstName: "Dana",
    lastName: null,
    email: "dana@gmail.com",
    phone: { number: "+12125550123", type: "Mobile", countryCode: "US" },
    streetAddress: null,
  },
  metadata: {
    utmSource: "google",
    price: "12.50",
    product: "Solar",
    smsOptedOut: false,
    smsConsentStatus: null,
    sourceMetadata: { campaign: "spring" },
  },
  customer: { creditScore: 710, isHomeowner: true, gender: { value: "Female" } },
} as unknown as Lead;

// Monday 2030-01-07 10:30 in New York.
const context = (overrides: Partial<EvaluationContext> = {}): EvaluationContext => ({
  lead,
  now: Date.parse("2030-01-07T15:30:00Z"),
  timeZone: "America/New_York",
  runStartedAt: "2030-01-07T15:29:00Z",
  hasReplied: async () => false,
  ...overrides,
});

const group = (mode: "all" | "any", conditions: unknown[]) =>
  v.parse(ConditionGroupSchema, {
    id: "g",
    mode,
    conditions: conditions.map((c, i) => ({ id: `c${i}`, ...(c as object) })),
  });
const holds = async (condition: unknown, overrides?: Partial<EvaluationContext>) =>
  (await evaluateGroup(group("all", [condition]), context(overrides))).passed;

describe("run engine: conditions", () => {
  it("compares lead fields case-insensitively, numerically and by presence", async () => {
    expect(
      await holds({ type: "LeadField", operator: "Equals", settings: { field: "contact.firstName", value: "DANA" } }),
    ).toBe(true);
    expect(
      await holds({
        type: "LeadField",
        operator: "NotEquals",
        settings: { field: "contact.firstName", value: "dana" },
      }),
    ).toBe(false);
    expect(
      await holds({ type: "LeadField", operator: "Contains", settings: { field: "contact.email", value: "@GMAIL" } }),
    ).toBe(true);
    expect(
      await holds({ type: "LeadField", operator: "StartsWith", settings: { field: "contact.phone", value: "+1212" } }),
    ).toBe(true);
    expect(
      await holds({
        type: "LeadField",
        operator: "In",
        settings: { field: "metadata.utmSource", values: ["bing", "Google"] },
      }),
    ).toBe(true);
    expect(
      await holds({
        type: "LeadField",
        operator: "NotIn",
        settings: { field: "metadata.utmSource", values: ["google"] },
      }),
    ).toBe(false);
    expect(
      await holds({ type: "LeadField", operator: "GreaterThan", settings: { field: "metadata.price", value: 10 } }),
    ).toBe(true);
    expect(
      await holds({ type: "LeadField", operator: "LessThan", settings: { field: "customer.creditScore", value: 700 } }),
    ).toBe(false);
    expect(
      await holds({ type: "LeadField", operator: "Equals", settings: { field: "customer.isHomeowner", value: true } }),
    ).toBe(true);
    expect(
      await holds({ type: "LeadField", operator: "Equals", settings: { field: "customer.gender", value: "female" } }),
    ).toBe(true);
    expect(
      await holds({
        type: "LeadField",
        operator: "Equals",
        settings: { field: "metadata.sourceMetadata.campaign", value: "spring" },
      }),
    ).toBe(true);
    expect(
      await holds({
        type: "LeadField",
        operator: "GreaterThan",
        settings: { field: "metadata.createdAt", value: "2029-12-31" },
      }),
    ).toBe(false);
  });

  it("treats a missing field as false for every operator except NotEquals, NotIn and NotExists", async () => {
    const field = "contact.lastName";
    expect(await holds({ type: "LeadField", operator: "Exists", settings: { field } })).toBe(false);
    expect(await holds({ type: "LeadField", operator: "NotExists", settings: { field } })).toBe(true);
    expect(await holds({ type: "LeadField", operator: "Equals", settings: { field, value: "x" } })).toBe(false);
    expect(await holds({ type: "LeadField", operator: "NotEquals", settings: { field, value: "x" } })).toBe(true);
    expect(await holds({ type: "LeadField", operator: "NotIn", settings: { field, values: ["x"] } })).toBe(true);
  });

  it("reads time of day and weekday in the organization's time zone", async () => {
    expect(await holds({ type: "TimeOfDay", operator: "Between", settings: { start: "09:00", end: "17:00" } })).toBe(
      true,
    );
    expect(
      await holds(
        { type: "TimeOfDay", operator: "Between", settings: { start: "09:00", end: "17:00" } },
        { timeZone: "Asia/Tokyo" },
      ),
    ).toBe(false);
    expect(await holds({ type: "TimeOfDay", operator: "NotBetween", settings: { start: "22:00", end: "06:00" } })).toBe(
      true,
    );
    expect(await holds({ type: "Weekday", operator: "In", settings: { days: ["Monday"] } })).toBe(true);
    expect(
      await holds(
        { type: "Weekday", operator: "In", settings: { days: ["Monday"] } },
        { timeZone: "Pacific/Kiritimati" },
      ),
    ).toBe(false);
  });

  it("checks lead age, replies and consent", async () => {
    expect(await holds({ type: "LeadAge", operator: "GreaterThan", settings: { seconds: 3600 } })).toBe(true);
    expect(await holds({ type: "LeadAge", operator: "LessThan", settings: { seconds: 60 } })).toBe(false);
    expect(await holds({ type: "HasReplied", operator: "Equals", settings: { value: false } })).toBe(true);
    expect(
      await holds(
        { type: "HasReplied", operator: "Equals", settings: { value: true } },
        { hasReplied: async () => true },
      ),
    ).toBe(true);
    expect(await holds({ type: "ConsentStatus", operator: "Equals", settings: { value: "Unknown" } })).toBe(true);
    const optedOut = { ...lead, metadata: { ...lead.metadata, smsOptedOut: true } } as Lead;
    expect(
      await holds(
        { type: "ConsentStatus", operator: "In", settings: { values: ["OptedIn", "Unknown"] } },
        { lead: optedOut },
      ),
    ).toBe(false);
  });

  it("combines a group with all or any, skips disabled conditions, and passes a group with none enabled", async () => {
    const yes = { type: "LeadField", operator: "Exists", settings: { field: "contact.firstName" } };
    const no = { type: "LeadField", operator: "Exists", settings: { field: "contact.lastName" } };
    expect((await evaluateGroup(group("all", [yes, no]), context())).passed).toBe(false);
    expect((await evaluateGroup(group("any", [yes, no]), context())).passed).toBe(true);
    expect((await evaluateGroup(group("all", [yes, { ...no, isEnabled: false }]), context())).passed).toBe(true);
    const disabled = await evaluateGroup(group("all", [{ ...no, isEnabled: false }]), context());
    expect(disabled).toMatchObject({ passed: true, conditions: [{ id: "c0", result: null }] });
  });

  it("reads template paths, objects holding one value as that value", () => {
    expect(leadValue(lead, "contact.phone")).toBe("+12125550123");
    expect(leadValue(lead, "lead.id")).toBe("01LEAD");
    expect(leadValue(lead, "organization.name", { organizationName: "Acme" })).toBe("Acme");
    const profile = { organizationName: "Acme", organizationPhone: "+13125550100", organizationWebsite: null };
    expect(leadValue(lead, "organization.phone", profile)).toBe("+13125550100");
    // A website never given reads as missing, so the placeholder's fallback applies.
    expect(leadValue(lead, "organization.website", profile)).toBeUndefined();
    expect(leadValue(undefined, "contact.firstName")).toBeUndefined();
  });

  it("reads the assignee's first name (the first word of their profile name), name and phone; nothing when unassigned", () => {
    const assignedUser = assignedUserValues({ name: "  Ann Marie Lee ", phone: "+14155550123" });
    expect(assignedUser).toEqual({ firstName: "Ann", name: "Ann Marie Lee", phone: "+14155550123" });
    expect(leadValue(lead, "assignedUser.firstName", { assignedUser })).toBe("Ann");
    expect(leadValue(lead, "assignedUser.phone", { assignedUser })).toBe("+14155550123");
    expect(leadValue(lead, "assignedUser.firstName", {})).toBeUndefined();
    expect(renderTemplate("Hi, this is {{assignedUser.firstName}}.", (path) => leadValue(lead, path))).toBe(
      "Hi, this is .",
    );
    expect(templatePathProblem("assignedUser.firstName")).toBeUndefined();
    expect(templatePathProblem("assignedUser.email")).toMatch(/assignedUser fields are firstName, name, phone/);
  });
});

describe("run engine: weighted split", () => {
  it("picks each connection in proportion to its weight, within 2 percentage points over 20,000 picks", () => {
    const candidates = [
      { id: "a", weight: 70 },
      { id: "b", weight: 20 },
      { id: "c", weight: 10 },
    ];
    const counts: Record<string, number> = { a: 0, b: 0, c: 0 };
    for (let i = 0; i < 20_000; i++) counts[pickWeighted(candidates)!.id]!++;
    expect(Math.abs(counts.a! / 20_000 - 0.7)).toBeLessThan(0.02);
    expect(Math.abs(counts.b! / 20_000 - 0.2)).toBeLessThan(0.02);
    expect(Math.abs(counts.c! / 20_000 - 0.1)).toBeLessThan(0.02);
    expect(pickWeighted([])).toBeUndefined();
  });

  it("drops candidates whose condition group fails before choosing, and passes through disabled actions", async () => {
    const definition = {
      triggers: [{ id: "t", type: "LeadCreated", isEnabled: true, displayName: "x", settings: {} }],
      conditionGroups: [
        group("all", [{ type: "LeadField", operator: "Exists", settings: { field: "contact.lastName" } }]),
      ],
      actions: [
        { id: "skip", type: "Stop", order: 0, isEnabled: false, settings: {} },
        { id: "after", type: "Stop", order: 1, isEnabled: true, settings: {} },
        { id: "never", type: "Stop", order: 2, isEnabled: true, settings: {} },
      ],
      connections: [
        { id: "c1", sourceNodeId: "t", targetNodeId: "g", weight: 100 },
        { id: "c2", sourceNodeId: "t", targetNodeId: "skip", weight: 1 },
        { id: "c3", sourceNodeId: "skip", targetNodeId: "after", weight: 1 },
        { id: "c4", sourceNodeId: "g", targetNodeId: "never", weight: 1 },
      ],
    } as never;
    const route = await routeFrom(definition, "t", context(), () => 0);
    expect(route.next?.id).toBe("after");
    expect(route.conditionFailed).toBe(true);
    expect(route.visited.map((step) => [step.kind, step.nodeId])).toEqual([
      ["ConditionGroup", "g"],
      ["SkippedAction", "skip"],
    ]);
  });
});

describe("run engine: clocks and targets", () => {
  it("fires cron schedules in the organization's time zone and intervals on the minute", () => {
    const after = Date.parse("2030-01-07T15:30:00Z"); // Monday 10:30 New York
    expect(new Date(nextFireAt({ cron: "0 9 * * MON-FRI" }, "America/New_York", after)).toISOString()).toBe(
      "2030-01-08T14:00:00.000Z",
    );
    expect(new Date(nextFireAt({ cron: "*/15 * * * *" }, "America/New_York", after)).toISOString()).toBe(
      "2030-01-07T15:45:00.000Z",
    );
    expect(new Date(nextFireAt({ cron: "0 0 1 * *" }, "Europe/Paris", after)).toISOString()).toBe(
      "2030-01-31T23:00:00.000Z",
    );
    expect(new Date(nextFireAt({ intervalMinutes: 5 }, "UTC", after + 20_000)).toISOString()).toBe(
      "2030-01-07T15:35:00.000Z",
    );
  });

  it("waits until the next wall-clock time, tomorrow when today's has passed", () => {
    const now = Date.parse("2030-01-07T15:30:00Z");
    expect(new Date(nextWallClock(now, "11:00", "America/New_York")).toISOString()).toBe("2030-01-07T16:00:00.000Z");
    expect(new Date(nextWallClock(now, "09:00", "America/New_York")).toISOString()).toBe("2030-01-08T14:00:00.000Z");
  });

  it("refuses private webhook targets unless the stage allows them", async () => {
    const before = process.env.AUTOMATION_HTTP_ALLOW_PRIVATE;
    const endpointBefore = process.env.DYNAMODB_ENDPOINT;
    try {
      process.env.AUTOMATION_HTTP_ALLOW_PRIVATE = "false";
      expect(await targetRefusal("http://127.0.0.1:8080/hook")).toMatch(/private or loopback/);
      expect(await targetRefusal("http://[::1]/hook")).toMatch(/private or loopback/);
      expect(await targetRefusal("http://169.254.169.254/latest/meta-data")).toMatch(/private or loopback/);
      expect(await targetRefusal("http://[::ffff:7f00:1]/hook")).toMatch(/private or loopback/);
      expect(await targetRefusal("http://localhost/hook")).toMatch(/private or loopback/);
      expect(await targetRefusal("https://8.8.8.8/hook")).toBeUndefined();
      process.env.AUTOMATION_HTTP_ALLOW_PRIVATE = "true";
      expect(await targetRefusal("http://127.0.0.1:8080/hook")).toBeUndefined();
      // Unset means refused, even where a DynamoDB endpoint is configured (as on a local stack).
      delete process.env.AUTOMATION_HTTP_ALLOW_PRIVATE;
      process.env.DYNAMODB_ENDPOINT = "http://127.0.0.1:8000";
      expect(await targetRefusal("http://127.0.0.1:8080/hook")).toMatch(/private or loopback/);
    } finally {
      if (before === undefined) delete process.env.AUTOMATION_HTTP_ALLOW_PRIVATE;
      else process.env.AUTOMATION_HTTP_ALLOW_PRIVATE = before;
      if (endpointBefore === undefined) delete process.env.DYNAMODB_ENDPOINT;
      else process.env.DYNAMODB_ENDPOINT = endpointBefore;
    }
  });
});

describe("the run step lease follows the queue timing", () => {
  it("outlives the consumer's timeout and expires inside the automationRuns visibility timeout", async () => {
    const { LEASE_MS } = await import("#core/automations/runs/engine");
    const { queues } = await import("#stacks/definitions");
    expect(LEASE_MS).toBeGreaterThan(queues.automationRuns.consumerTimeoutSeconds * 1000);
    expect(LEASE_MS).toBeLessThan(queues.automationRuns.visibilityTimeoutSeconds * 1000);
  });
});

describe("a run's id derived from its trigger event (issue 27: the run's put is its claim)", () => {
  const leadId = "01KB6ZS0E8M5Q9TJ3W1V2X4Y5Z";
  it("is the same for every delivery of one event, another for another automation, at the time of the event's subject", () => {
    const first = runIdOf("01AUTOMATIONA", `lead.created:${leadId}`);
    expect(first).toBe(runIdOf("01AUTOMATIONA", `lead.created:${leadId}`));
    expect(first).not.toBe(runIdOf("01AUTOMATIONB", `lead.created:${leadId}`));
    expect(first).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(decodeTime(first!)).toBe(decodeTime(leadId));
    expect(decodeTime(runIdOf("01AUTOMATIONA", `manual:${leadId}`)!)).toBe(decodeTime(leadId));
  });

  it("is not derived for triggers that keep their claim item (schedules, message and call triggers)", () => {
    expect(runIdOf("01AUTOMATIONA", `schedule:trigger-1:2030-01-07T14:00:00.000Z:${leadId}`)).toBeUndefined();
    expect(runIdOf("01AUTOMATIONA", `message.failed:${leadId}`)).toBeUndefined();
    expect(runIdOf("01AUTOMATIONA", "lead.created:not-a-ulid")).toBeUndefined();
  });
});
