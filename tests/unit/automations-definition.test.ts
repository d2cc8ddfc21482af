import * as v from "valibot";
import { describe, expect, it } from "vitest";
import {
  actionTypes,
  AutomationRequestSchema,
  conditionTypes,
  parseCron,
  parseTemplate,
  renderTemplate,
  jsonStringEncode,
  speedToLeadExample,
  triggerTypes,
  validateAutomationGraph,
  webhookOnFailureExample,
  webhookSignature,
  type AutomationRequest,
} from "#core/automations/definition";
import { toFieldErrors, toPointer, type FieldError } from "#core/shared/validation";

type Json = Record<string, unknown>;

function parse(input: unknown): { output?: AutomationRequest; errors: FieldError[] } {
  const result = v.safeParse(AutomationRequestSchema, input);
  return result.success ? { output: result.output, errors: [] } : { errors: toFieldErrors(result.issues) };
}

function errorsOf(input: unknown): FieldError[] {
  return parse(input).errors;
}

function valid(input: unknown): AutomationRequest {
  const { output, errors } = parse(input);
  expect(errors).toEqual([]);
  return output!;
}

/** Manual trigger → the action under test. */
function withAction(action: Json): Json {
  return {
    name: "action under test",
    triggers: [{ id: "t", type: "Manual" }],
    actions: [{ id: "a", ...action }],
    connections: [{ id: "c1", sourceNodeId: "t", targetNodeId: "a" }],
  };
}

/** The trigger under test → Stop. */
function withTrigger(trigger: Json): Json {
  return {
    name: "trigger under test",
    triggers: [{ id: "t", ...trigger }],
    actions: [{ id: "end", type: "Stop" }],
    connections: [{ id: "c1", sourceNodeId: "t", targetNodeId: "end" }],
  };
}

/** Manual trigger → a group holding the condition under test → Stop. */
function withCondition(condition: Json): Json {
  return {
    name: "condition under test",
    triggers: [{ id: "t", type: "Manual" }],
    conditionGroups: [{ id: "g", conditions: [{ id: "k", ...condition }] }],
    actions: [{ id: "end", type: "Stop" }],
    connections: [
      { id: "c1", sourceNodeId: "t", targetNodeId: "g" },
      { id: "c2", sourceNodeId: "g", targetNodeId: "end" },
    ],
  };
}

/** Expects exactly one error, at `pointer`, whose detail contains `fragment`. */
function expectSingleError(input: unknown, pointer: string, fragment: string | RegExp): void {
  const errors = errorsOf(input);
  expect(errors, JSON.stringify(errors)).toHaveLength(1);
  expect(errors[0]!.pointer).toBe(pointer);
  expect(errors[0]!.detail).toMatch(fragment);
}

describe("automation request defaults", () => {
  it("accepts a body with only a name and fills every default", () => {
    expect(valid({ name: "  Welcome  " })).toEqual({
      name: "Welcome",
      enabled: false,
      scope: "Organization",
      visibility: "Organization",
      triggers: [],
      conditionGroups: [],
      actions: [],
      connections: [],
    });
  });

  it("defaults node flags, display names, group mode, action order, weights and settings", () => {
    const output = valid({
      name: "defaults",
      enabled: true,
      triggers: [{ id: "t", type: "LeadCreated" }],
      conditionGroups: [
        { id: "g", conditions: [{ id: "k", type: "HasReplied", operator: "Equals", settings: { value: false } }] },
      ],
      actions: [
        { id: "w", type: "Wait", settings: { durationSeconds: 60 } },
        { id: "h", type: "HttpRequest", settings: { url: "http://127.0.0.1:9999/hook" } },
      ],
      connections: [
        { id: "c1", sourceNodeId: "t", targetNodeId: "g" },
        { id: "c2", sourceNodeId: "g", targetNodeId: "w" },
        { id: "c3", sourceNodeId: "w", targetNodeId: "h" },
      ],
    });
    expect(output.triggers[0]).toEqual({
      id: "t",
      type: "LeadCreated",
      displayName: "Lead created",
      isEnabled: true,
      settings: {},
    });
    expect(output.conditionGroups[0]).toMatchObject({
      mode: "all",
      conditions: [{ isEnabled: true, settings: { value: false, since: "RunStarted" } }],
    });
    expect(output.actions.map((action) => action.order)).toEqual([0, 1]);
    expect(output.actions[1]!.settings).toEqual({
      url: "http://127.0.0.1:9999/hook",
      method: "POST",
      timeoutMs: 10_000,
      maxRetries: 3,
    });
    expect(output.connections.map((connection) => connection.weight)).toEqual([1, 1, 1]);
  });

  it("keeps an explicit action order", () => {
    expect(valid(withAction({ type: "Stop", order: 7 })).actions[0]!.order).toBe(7);
  });

  it("accepts and drops response-only fields echoed from a GET", () => {
    const output = valid({
      name: "round trip",
      version: 3,
      id: "01HZX",
      organizationId: "org",
      createdAt: "2026-01-01T00:00:00.000Z",
      modifiedAt: null,
      lastRunStatus: null,
      isSystemManaged: false,
      managementLevel: "Organization",
      user: { id: "u", name: "Ann" },
    });
    expect(output).toMatchObject({ name: "round trip", version: 3, id: "01HZX" });
    expect(output).not.toHaveProperty("organizationId");
    expect(output).not.toHaveProperty("createdAt");
  });

  it("rejects a missing, blank or too long name and other bad top-level fields", () => {
    expectSingleError({}, "/name", '"name" is required.');
    expectSingleError({ name: "   " }, "/name", /empty/);
    expectSingleError({ name: "x".repeat(256) }, "/name", /at most 255/);
    expect(errorsOf({ name: "x", enabled: "yes", scope: "World", version: 0, colour: "red" })).toEqual([
      { pointer: "/enabled", detail: 'Must be true or false (received "yes").' },
      { pointer: "/scope", detail: 'Must be one of "Organization", "Source" or "PhoneNumber" (received "World").' },
      { pointer: "/version", detail: "Must be at least 1 (received 0)." },
      { pointer: "/colour", detail: 'Unknown field "colour" is not allowed here.' },
    ]);
  });

  it("validates connection weights as integers from 1 to 100", () => {
    const body = withAction({ type: "Stop" });
    const connections = [{ id: "c1", sourceNodeId: "t", targetNodeId: "a", weight: 0 }];
    expectSingleError({ ...body, connections }, "/connections/0/weight", /at least 1/);
    expectSingleError(
      { ...body, connections: [{ ...connections[0], weight: 101 }] },
      "/connections/0/weight",
      /at most 100/,
    );
  });

  it("accepts both exported examples unchanged", () => {
    expect(valid(speedToLeadExample).actions).toHaveLength(3);
    expect(valid(webhookOnFailureExample).actions).toHaveLength(2);
  });
});

describe("node types", () => {
  it("reports an unknown trigger, condition and action type at the node's type", () => {
    expectSingleError(
      withTrigger({ type: "LeadUpdated" }),
      "/triggers/0/type",
      /Must be one of "LeadCreated".*received "LeadUpdated"/,
    );
    expectSingleError(withAction({ type: "SendFax" }), "/actions/0/type", /received "SendFax"/);
    expectSingleError(
      withCondition({ type: "Mood", operator: "Equals" }),
      "/conditionGroups/0/conditions/0/type",
      /received "Mood"/,
    );
    expectSingleError(withAction({}), "/actions/0/type", /Required; must be one of/);
  });

  it("rejects unknown settings keys and unknown node keys", () => {
    expectSingleError(
      withAction({ type: "Stop", settings: { reason: "x" } }),
      "/actions/0/settings/reason",
      'Unknown field "reason" is not allowed here.',
    );
    expectSingleError(withAction({ type: "Stop", colour: "red" }), "/actions/0/colour", /Unknown field/);
  });

  it("lets settings be omitted only when the type has no required setting", () => {
    expect(valid(withAction({ type: "Stop" })).actions[0]!.settings).toEqual({});
    expect(valid(withAction({ type: "PlaceCall" })).actions[0]!.settings).toEqual({ timeoutSeconds: 30 });
    expect(valid(withAction({ type: "AssignLead" })).actions[0]!.settings).toEqual({});
    expectSingleError(withAction({ type: "SendSms" }), "/actions/0/settings", '"settings" is required.');
  });

  it("requires a node id of safe characters", () => {
    expectSingleError(withAction({ type: "Stop", id: "a b" }), "/actions/0/id", /letters, digits/);
  });

  it("covers every declared type with a schema", () => {
    expect(triggerTypes).toHaveLength(7);
    expect(conditionTypes).toHaveLength(7);
    expect(actionTypes).toHaveLength(9);
  });
});

describe("trigger settings", () => {
  it.each([
    ["LeadCreated", {}],
    ["LeadCreated", { sourceIds: ["src_1", "src_2"] }],
    ["MessageReceived", { keywords: ["yes", "info"], phoneNumberIds: ["pn_1"] }],
    ["MessageFailed", { statuses: ["Undeliverable"] }],
    ["CallMissed", { phoneNumberIds: ["pn_1"] }],
    ["LeadOptedOut", {}],
    ["Schedule", { cron: "0 9 * * MON-FRI" }],
    ["Schedule", { cron: "*/15 8-17 1,15 JAN-DEC 0" }],
    ["Schedule", { intervalMinutes: 30 }],
    ["Manual", {}],
  ])("accepts %s with %j", (type, settings) => {
    valid(withTrigger({ type, settings }));
  });

  it.each([
    ["LeadCreated", { sourceIds: [] }, "/triggers/0/settings/sourceIds", /empty/],
    ["LeadCreated", { sourceIds: "src_1" }, "/triggers/0/settings/sourceIds", /Must be an array/],
    ["MessageReceived", { keywords: [" "] }, "/triggers/0/settings/keywords/0", /empty/],
    ["MessageFailed", { statuses: ["Delivered"] }, "/triggers/0/settings/statuses/0", /"Failed" or "Undeliverable"/],
    ["LeadOptedOut", { sourceIds: ["x"] }, "/triggers/0/settings/sourceIds", /Unknown field/],
    ["Schedule", {}, "/triggers/0/settings", 'Give exactly one of "cron" or "intervalMinutes".'],
    ["Schedule", { cron: "0 9 * * *", intervalMinutes: 5 }, "/triggers/0/settings", /exactly one/],
    ["Schedule", { cron: "0 24 * * *" }, "/triggers/0/settings/cron", /hour field "24" must use values 0-23/],
    ["Schedule", { cron: "0 9 * *" }, "/triggers/0/settings/cron", /has 4/],
    ["Schedule", { intervalMinutes: 0 }, "/triggers/0/settings/intervalMinutes", /at least 1/],
  ])("rejects %s with %j at %s", (type, settings, pointer, fragment) => {
    expectSingleError(withTrigger({ type, settings }), pointer, fragment);
  });

  it("defaults MessageFailed to both failure statuses", () => {
    expect(valid(withTrigger({ type: "MessageFailed" })).triggers[0]!.settings).toEqual({
      statuses: ["Failed", "Undeliverable"],
    });
  });
});

describe("condition settings", () => {
  it.each([
    ["LeadField", "Equals", { field: "contact.firstName", value: "Ann" }],
    ["LeadField", "NotEquals", { field: "metadata.smsOptedOut", value: true }],
    ["LeadField", "Contains", { field: "contact.email", value: "@example.com" }],
    ["LeadField", "StartsWith", { field: "metadata.utmSource", value: "google" }],
    ["LeadField", "In", { field: "metadata.vertical", values: ["auto", "home"] }],
    ["LeadField", "NotIn", { field: "customer.creditScore", values: [500, 550] }],
    ["LeadField", "Exists", { field: "contact.streetAddress.city" }],
    ["LeadField", "NotExists", { field: "metadata.sourceMetadata.campaign" }],
    ["LeadField", "GreaterThan", { field: "metadata.price", value: 10 }],
    ["LeadField", "LessThan", { field: "customer.birthDate", value: "2000-01-01" }],
    ["TimeOfDay", "Between", { start: "09:00", end: "17:00" }],
    ["TimeOfDay", "NotBetween", { start: "21:00", end: "08:00" }],
    ["Weekday", "In", { days: ["Monday", "Friday"] }],
    ["LeadAge", "LessThan", { seconds: 3600 }],
    ["HasReplied", "Equals", { value: true, since: "LeadCreated" }],
    ["ConsentStatus", "Equals", { value: "OptedIn" }],
    ["ConsentStatus", "NotIn", { values: ["OptedOut", "Unknown"] }],
  ])("accepts %s %s %j", (type, operator, settings) => {
    valid(withCondition({ type, operator, settings }));
  });

  const at = "/conditionGroups/0/conditions/0";
  it.each([
    [
      "LeadField",
      "Equals",
      { field: "contact.nickname", value: "x" },
      `${at}/settings/field`,
      /"contact.nickname" is not a lead field/,
    ],
    [
      "LeadField",
      "Equals",
      { field: "lead.id", value: "x" },
      `${at}/settings/field`,
      /must start with one of "contact."/,
    ],
    ["LeadField", "Equals", { field: "contact.firstName.x", value: "x" }, `${at}/settings/field`, /no nested fields/],
    ["LeadField", "Equals", { field: "contact.firstName" }, `${at}/settings/value`, '"value" is required.'],
    ["LeadField", "In", { field: "contact.firstName", values: [] }, `${at}/settings/values`, /empty/],
    ["LeadField", "Exists", { field: "contact.email", value: "x" }, `${at}/settings/value`, /Unknown field/],
    [
      "LeadField",
      "GreaterThan",
      { field: "metadata.price", value: "soon" },
      `${at}/settings/value`,
      /number or an ISO 8601 date/,
    ],
    ["LeadField", "Matches", { field: "contact.email" }, `${at}/operator`, /received "Matches"/],
    ["TimeOfDay", "Between", { start: "9:00", end: "17:00" }, `${at}/settings/start`, /HH:mm/],
    ["TimeOfDay", "Between", { start: "09:00", end: "09:00" }, `${at}/settings`, /must differ/],
    ["TimeOfDay", "Equals", { start: "09:00", end: "10:00" }, `${at}/operator`, /"Between" or "NotBetween"/],
    ["Weekday", "In", { days: ["Monday", "Monday"] }, `${at}/settings/days`, /only once/],
    ["Weekday", "In", { days: ["Funday"] }, `${at}/settings/days/0`, /received "Funday"/],
    ["LeadAge", "GreaterThan", { seconds: -1 }, `${at}/settings/seconds`, /at least 0/],
    ["HasReplied", "Equals", { value: "no" }, `${at}/settings/value`, /true or false/],
    [
      "ConsentStatus",
      "Equals",
      { value: "Maybe" },
      `${at}/settings/value`,
      /"OptedIn", "OptedOut", "Unverified" or "Unknown"/,
    ],
    ["ConsentStatus", "In", { value: "OptedIn" }, `${at}/settings/values`, '"values" is required.'],
  ])("rejects %s %s %j", (type, operator, settings, pointer, fragment) => {
    const errors = errorsOf(withCondition({ type, operator, settings }));
    expect(errors.find((error) => error.pointer === pointer)?.detail, JSON.stringify(errors)).toMatch(fragment);
  });

  it("requires at least one condition per group and a known mode", () => {
    const body = withCondition({ type: "HasReplied", operator: "Equals", settings: { value: false } });
    const groups = body.conditionGroups as Json[];
    expectSingleError(
      { ...body, conditionGroups: [{ ...groups[0], conditions: [] }] },
      "/conditionGroups/0/conditions",
      /empty/,
    );
    expectSingleError(
      { ...body, conditionGroups: [{ ...groups[0], mode: "All" }] },
      "/conditionGroups/0/mode",
      /"all" or "any"/,
    );
  });
});

describe("action settings", () => {
  it.each([
    ["SendSms", { body: "Hi {{contact.firstName|there}}, about {{metadata.product}}", fallback: "our offer" }],
    ["SendSms", { body: "Hello from {{organization.name}}", fromPhoneNumberId: "pn_1" }],
    ["SendMms", { mediaUrls: ["https://cdn.example.com/card.png"] }],
    ["SendMms", { body: "Your quote", mediaUrls: ["https://cdn.example.com/quote.pdf"] }],
    ["Wait", { durationSeconds: 600 }],
    ["Wait", { untilTime: "09:30" }],
    [
      "HttpRequest",
      {
        url: "https://hooks.example.com/x",
        method: "PUT",
        headers: { "X-Api-Key": "k" },
        body: '{"id":"{{lead.id}}"}',
        secret: "s".repeat(32),
        timeoutMs: 2000,
        maxRetries: 0,
      },
    ],
    ["HttpRequest", { url: "https://hooks.example.com/x", method: "GET" }],
    [
      "UpdateLead",
      { fields: { "metadata.vertical": "auto", "customer.isHomeowner": true, "contact.streetAddress.city": null } },
    ],
    ["AddToSuppression", { reason: "Asked not to be contacted" }],
    ["AddToSuppression", {}],
    ["PlaceCall", { connectTo: "+14155550123", timeoutSeconds: 20 }],
    ["Stop", {}],
  ])("accepts %s with %j", (type, settings) => {
    valid(withAction({ type, settings }));
  });

  it.each([
    ["SendSms", {}, "/actions/0/settings/body", '"body" is required.'],
    ["SendSms", { body: "" }, "/actions/0/settings/body", /empty/],
    ["SendSms", { body: "x".repeat(1601) }, "/actions/0/settings/body", /at most 1600/],
    ["SendSms", { body: "Hi {{contact.firstName" }, "/actions/0/settings/body", /never closed/],
    ["SendSms", { body: "Hi }} there" }, "/actions/0/settings/body", /without a matching/],
    ["SendSms", { body: "Hi {{owner.name}}" }, "/actions/0/settings/body", /"owner.name" must start with one of/],
    ["SendMms", { body: "no media" }, "/actions/0/settings/mediaUrls", '"mediaUrls" is required.'],
    ["SendMms", { mediaUrls: ["ftp://x.example.com/a.png"] }, "/actions/0/settings/mediaUrls/0", /http or https/],
    ["Wait", {}, "/actions/0/settings", 'Give exactly one of "durationSeconds" or "untilTime".'],
    ["Wait", { durationSeconds: 1.5 }, "/actions/0/settings/durationSeconds", /integer/],
    ["Wait", { durationSeconds: 60, untilTime: "09:00" }, "/actions/0/settings", /exactly one/],
    ["Wait", { untilTime: "25:00" }, "/actions/0/settings/untilTime", /HH:mm/],
    ["HttpRequest", { url: "not a url" }, "/actions/0/settings/url", /absolute http or https URL/],
    ["HttpRequest", { url: "https://x.example.com", method: "post" }, "/actions/0/settings/method", /received "post"/],
    [
      "HttpRequest",
      { url: "https://x.example.com", headers: { "X-Signature": "forged" } },
      "/actions/0/settings/headers/X-Signature",
      /set by the service/,
    ],
    [
      "HttpRequest",
      { url: "https://x.example.com", headers: { "Bad Header": "x" } },
      "/actions/0/settings/headers/Bad Header",
      /header name/,
    ],
    ["HttpRequest", { url: "https://x.example.com", secret: "short" }, "/actions/0/settings/secret", /at least 16/],
    [
      "HttpRequest",
      { url: "https://x.example.com", timeoutMs: 60_000 },
      "/actions/0/settings/timeoutMs",
      /at most 30000/,
    ],
    ["HttpRequest", { url: "https://x.example.com", maxRetries: 11 }, "/actions/0/settings/maxRetries", /at most 10/],
    [
      "HttpRequest",
      { url: "https://x.example.com", method: "GET", body: "{}" },
      "/actions/0/settings",
      "A GET request cannot have a body.",
    ],
    ["UpdateLead", { fields: {} }, "/actions/0/settings/fields", /at least 1 entry/],
    [
      "UpdateLead",
      { fields: { "metadata.smsOptedOut": false } },
      "/actions/0/settings/fields/metadata.smsOptedOut",
      /cannot be changed by an automation/,
    ],
    [
      "UpdateLead",
      { fields: { "contact.phone": "+14155550123" } },
      "/actions/0/settings/fields/contact.phone",
      /cannot be changed/,
    ],
    [
      "UpdateLead",
      { fields: { "customer.income": [1] } },
      "/actions/0/settings/fields/customer.income",
      /string, a number, true\/false or null/,
    ],
    ["AddToSuppression", { reason: "x".repeat(256) }, "/actions/0/settings/reason", /at most 255/],
    ["PlaceCall", { connectTo: "4155550123" }, "/actions/0/settings/connectTo", /E.164/],
    ["PlaceCall", { timeoutSeconds: 1 }, "/actions/0/settings/timeoutSeconds", /at least 5/],
    ["Stop", { outcome: "done" }, "/actions/0/settings/outcome", /Unknown field/],
  ])("rejects %s with %j at %s", (type, settings, pointer, fragment) => {
    expectSingleError(withAction({ type, settings }), pointer, fragment);
  });

  it("points at the failing action among several", () => {
    const body = {
      name: "third action is bad",
      triggers: [{ id: "t", type: "Manual" }],
      actions: [
        { id: "a0", type: "SendSms", settings: { body: "one" } },
        { id: "a1", type: "Wait", settings: { durationSeconds: 5 } },
        { id: "a2", type: "SendSms", settings: { body: 42 } },
      ],
      connections: [
        { id: "c1", sourceNodeId: "t", targetNodeId: "a0" },
        { id: "c2", sourceNodeId: "a0", targetNodeId: "a1" },
        { id: "c3", sourceNodeId: "a1", targetNodeId: "a2" },
      ],
    };
    expectSingleError(body, "/actions/2/settings/body", "Must be a string (received 42).");
  });
});

describe("workflow graph", () => {
  const trigger = { id: "t", type: "LeadCreated" };
  const sms = (id: string) => ({ id, type: "SendSms", settings: { body: "hello" } });
  const link = (id: string, sourceNodeId: string, targetNodeId: string) => ({ id, sourceNodeId, targetNodeId });

  it("rejects a node id used twice, at the second use", () => {
    const errors = errorsOf({
      name: "dup",
      triggers: [trigger],
      conditionGroups: [
        { id: "g", conditions: [{ id: "t", type: "HasReplied", operator: "Equals", settings: { value: false } }] },
      ],
      actions: [sms("g")],
      connections: [link("c1", "t", "g")],
    });
    expect(errors).toContainEqual({
      pointer: "/conditionGroups/0/conditions/0/id",
      detail:
        'Node id "t" is already used at /triggers/0; ids must be unique across triggers, condition groups, conditions and actions.',
    });
    expect(errors.map((error) => error.pointer)).toContain("/actions/0/id");
  });

  it("rejects connections to ids that do not exist, at the dangling end", () => {
    const errors = errorsOf({
      name: "dangling",
      triggers: [trigger],
      actions: [sms("a")],
      connections: [link("c1", "t", "a"), link("c2", "ghost", "a"), link("c3", "a", "nowhere")],
    });
    expect(errors).toEqual([
      { pointer: "/connections/1/sourceNodeId", detail: 'No trigger, condition group or action has id "ghost".' },
      { pointer: "/connections/2/targetNodeId", detail: 'No trigger, condition group or action has id "nowhere".' },
    ]);
  });

  it("rejects a connection to a condition inside a group", () => {
    const body = withCondition({ type: "HasReplied", operator: "Equals", settings: { value: false } });
    const connections = [link("c1", "t", "g"), link("c2", "g", "end"), link("c3", "t", "k")];
    expectSingleError({ ...body, connections }, "/connections/2/targetNodeId", /condition inside condition group "g"/);
  });

  it("rejects a trigger as a connection target and a Stop with outgoing connections", () => {
    const errors = errorsOf({
      name: "bad ends",
      triggers: [trigger, { id: "t2", type: "Manual" }],
      actions: [sms("a"), { id: "s", type: "Stop" }],
      connections: [link("c1", "t", "s"), link("c2", "s", "a"), link("c3", "t2", "a"), link("c4", "a", "t")],
    });
    expect(errors).toEqual([
      {
        pointer: "/connections/1/sourceNodeId",
        detail: '"s" is a Stop action; it ends the run and cannot have outgoing connections.',
      },
      {
        pointer: "/connections/3/targetNodeId",
        detail: '"t" is a trigger; triggers start runs and cannot be the target of a connection.',
      },
    ]);
  });

  it("rejects duplicate connection ids and duplicate links", () => {
    const errors = errorsOf({
      name: "dups",
      triggers: [trigger],
      actions: [sms("a")],
      connections: [link("c1", "t", "a"), link("c1", "t", "a")],
    });
    expect(errors).toEqual([
      { pointer: "/connections/1/id", detail: 'Connection id "c1" is already used at /connections/0.' },
      { pointer: "/connections/1", detail: 'Duplicate of /connections/0: both connect "t" to "a".' },
    ]);
  });

  it("rejects actions and condition groups no trigger reaches", () => {
    const errors = errorsOf({
      name: "islands",
      triggers: [trigger],
      conditionGroups: [
        { id: "g", conditions: [{ id: "k", type: "HasReplied", operator: "Equals", settings: { value: true } }] },
      ],
      actions: [sms("a"), sms("b"), sms("c")],
      connections: [link("c1", "t", "a"), link("c2", "b", "c"), link("c3", "g", "b")],
    });
    expect(errors).toEqual([
      {
        pointer: "/conditionGroups/0",
        detail: 'Condition group "g" is not reachable from any trigger; connect it or remove it.',
      },
      {
        pointer: "/actions/1",
        detail: 'Action "b" (SendSms) is not reachable from any trigger; connect it or remove it.',
      },
      {
        pointer: "/actions/2",
        detail: 'Action "c" (SendSms) is not reachable from any trigger; connect it or remove it.',
      },
    ]);
  });

  it("treats a disabled action as a pass-through for reachability", () => {
    valid({
      name: "skip",
      triggers: [trigger],
      actions: [{ ...sms("a"), isEnabled: false }, sms("b")],
      connections: [link("c1", "t", "a"), link("c2", "a", "b")],
    });
  });

  it("rejects a loop without a Wait, at the connection that closes it", () => {
    const errors = errorsOf({
      name: "loop",
      triggers: [trigger],
      actions: [sms("a"), sms("b")],
      connections: [link("c1", "t", "a"), link("c2", "a", "b"), link("c3", "b", "a")],
    });
    expect(errors).toEqual([
      {
        pointer: "/connections/2",
        detail:
          'Connections form a loop "a" → "b" → "a" without an enabled Wait action; add a Wait action to the loop.',
      },
    ]);
  });

  it("rejects a self-loop and a loop whose only Wait is disabled", () => {
    expectSingleError(
      {
        name: "self",
        triggers: [trigger],
        actions: [sms("a")],
        connections: [link("c1", "t", "a"), link("c2", "a", "a")],
      },
      "/connections/1",
      /loop "a" → "a"/,
    );
    expectSingleError(
      {
        name: "disabled wait",
        triggers: [trigger],
        actions: [sms("a"), { id: "w", type: "Wait", isEnabled: false, settings: { durationSeconds: 60 } }],
        connections: [link("c1", "t", "a"), link("c2", "a", "w"), link("c3", "w", "a")],
      },
      "/connections/2",
      /without an enabled Wait/,
    );
  });

  it("accepts a loop through a Wait (a drip that repeats daily)", () => {
    valid({
      name: "drip",
      enabled: true,
      triggers: [trigger],
      conditionGroups: [
        { id: "g", conditions: [{ id: "k", type: "HasReplied", operator: "Equals", settings: { value: false } }] },
      ],
      actions: [sms("a"), { id: "w", type: "Wait", settings: { durationSeconds: 86_400 } }],
      connections: [link("c1", "t", "a"), link("c2", "a", "w"), link("c3", "w", "g"), link("c4", "g", "a")],
    });
  });

  it("requires an enabled trigger when the automation is enabled, but not for a disabled draft", () => {
    expectSingleError(
      { name: "no trigger", enabled: true },
      "/triggers",
      "An enabled automation needs at least one trigger.",
    );
    valid({ name: "draft", enabled: false });
    const disabledTrigger = { ...withTrigger({ type: "Manual", isEnabled: false }), enabled: true };
    expectSingleError(disabledTrigger, "/triggers", /at least one enabled trigger; all of its triggers are disabled/);
    valid({ ...disabledTrigger, enabled: false });
  });

  it("accepts a weighted split", () => {
    const output = valid({
      name: "split",
      enabled: true,
      triggers: [trigger],
      actions: [sms("a"), sms("b")],
      connections: [
        { ...link("c1", "t", "a"), weight: 70 },
        { ...link("c2", "t", "b"), weight: 30 },
      ],
    });
    expect(output.connections.map((connection) => connection.weight)).toEqual([70, 30]);
  });

  it("is available on its own for stored automations", () => {
    expect(
      validateAutomationGraph({ enabled: true, triggers: [], conditionGroups: [], actions: [], connections: [] }),
    ).toEqual([{ pointer: "/triggers", detail: "An enabled automation needs at least one trigger." }]);
  });
});

describe("templates, cron and signatures", () => {
  it("renders placeholders with inline and action fallbacks", () => {
    const lead: Record<string, unknown> = { "contact.firstName": "Ann", "metadata.product": "" };
    const lookup = (path: string) => lead[path];
    expect(
      renderTemplate("Hi {{ contact.firstName | there }}, {{metadata.product}}!", lookup, { fallback: "our plans" }),
    ).toBe("Hi Ann, our plans!");
    expect(renderTemplate("Hi {{contact.lastName|friend}}", lookup)).toBe("Hi friend");
    expect(
      renderTemplate('{"name":"{{contact.firstName}}"}', () => 'A "quoted" name', { encode: jsonStringEncode }),
    ).toBe('{"name":"A \\"quoted\\" name"}');
  });

  it("lists placeholders and explains malformed templates", () => {
    const parsed = parseTemplate("{{contact.firstName|x}} and {{lead.id}}");
    expect(parsed.ok && parsed.placeholders.map((placeholder) => [placeholder.path, placeholder.fallback])).toEqual([
      ["contact.firstName", "x"],
      ["lead.id", undefined],
    ]);
    expect(parseTemplate("{{ {{contact.firstName}} }}")).toMatchObject({ ok: false });
  });

  it("expands cron fields, treating 7 as Sunday", () => {
    const parsed = parseCron("*/20 9-11 * * 1-5,7");
    expect(parsed.ok && parsed.fields).toMatchObject({
      minutes: [0, 20, 40],
      hours: [9, 10, 11],
      daysOfWeek: [0, 1, 2, 3, 4, 5],
    });
    expect(parseCron("0 9 * * 5-1")).toMatchObject({ ok: false });
  });

  it("signs webhook bodies with HMAC-SHA256 over timestamp and body", () => {
    // Reference value from `printf '1700000000.{}' | openssl dgst -sha256 -hmac secret`.
    expect(webhookSignature("secret", 1700000000, "{}")).toBe(
      "sha256=b8569b78799ff9e3cbff0fc2d63a33a2b57f3282abd07c37ae5e8e7d79a5f163",
    );
    expect(webhookSignature("secret", 1700000000, "{}")).not.toBe(webhookSignature("secret", 1700000001, "{}"));
  });

  it("escapes JSON Pointer segments", () => {
    expect(toPointer(["headers", "a/b~c", 0])).toBe("/headers/a~1b~0c/0");
    expect(toPointer([])).toBe("");
  });
});
