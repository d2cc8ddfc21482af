import { describe, expect, it } from "vitest";
import { applyRoute, finish, leased } from "#core/automations/runs/engine";
import type { StoredRun } from "#core/automations/runs/model";
import type { Route } from "#core/automations/runs/route";
import { runPut } from "#core/automations/runs/store";
import { toStoredRun } from "#core/db/entities/packed-runs";
import { where } from "#core/db/expression";
import { AutomationRunEntity } from "#core/db/entities/automations";
import { sizeOfItem } from "#core/observability/call-count";
import { UnreadableItemError } from "#core/errors";
import { deflateSync } from "node:zlib";

const at = "2026-11-29T10:52:15.123Z";
const eventId = "lead.created:01M8KEY8AWG94J3XTVFB8V4FN2";
const data = { leadId: "01M8KEY8AWG94J3XTVFB8V4FN2", sourceId: "01M8KEWS589M93TR7QWGGWYRVX", complianceStatus: null };

/** A run at its trigger, as `Engine.start` builds it before routing. */
const started: StoredRun = {
  id: "01M8KEY8AWBES3EF4BPBWR02GE",
  automationId: "01M8KEWS589M93TR7QWGGWYRVV",
  automationName: "New lead: first text",
  automationVersion: 3,
  organizationId: "01M8KEWS589M93TR7QWGGWYRVA",
  status: "Pending",
  trigger: { nodeId: "t", type: "LeadCreated", eventId, eventType: "lead.created", data },
  leadId: data.leadId,
  path: ["t"],
  currentNodeId: null,
  waitingUntil: null,
  steps: [
    {
      seq: 0,
      nodeId: "t",
      kind: "Trigger",
      type: "LeadCreated",
      status: "Succeeded",
      attempts: 1,
      input: null,
      output: { eventId, eventType: "lead.created", ...data },
      error: null,
      startedAt: at,
      finishedAt: at,
      durationMs: 0,
    },
  ],
  error: null,
  retryCount: 0,
  createdAt: at,
  finishedAt: null,
  modifiedAt: at,
  cursorSeq: -1,
  cursorAttempt: 0,
  effectId: null,
  leaseToken: null,
  leaseUntil: null,
  rev: 0,
};

/** The writes of a run of one text: created holding its first step, observing its message, ended. */
function lifetime(): { created: StoredRun; observing: StoredRun; ended: StoredRun } {
  const route = { visited: [], next: { id: "hello", type: "SendSms" } } as unknown as Route;
  const created = leased(applyRoute(started, route, at), Date.parse(at));
  const output = {
    messageId: "01M8KEY8PDSW8Z1NJK9K11F18T",
    status: "Queued",
    fromPhoneNumber: "+12125550142",
    toPhoneNumber: "+12017985266",
  };
  const input = { to: "+12017985266", body: "Hi Flow, thanks for your request! Reply STOP to opt out.", mediaUrls: [] };
  const step = (changes: object) =>
    created.steps.map((entry, index) => (index === 1 ? { ...entry, ...changes } : entry));
  const observing: StoredRun = {
    ...created,
    leaseToken: null,
    leaseUntil: null,
    dueAt: at,
    rev: 1,
    steps: step({ input, output: { ...output, observations: 1 } }),
  };
  const ended = finish(
    {
      ...observing,
      path: ["t", "hello"],
      steps: step({ input, output, status: "Succeeded", attempts: 1, finishedAt: at, durationMs: 1400 }),
    },
    "Succeeded",
    null,
    at,
  );
  return { created, observing, ended };
}

describe("a run is stored packed (issue 27)", () => {
  it("reads back as the run written, in each state of its life", () => {
    for (const run of Object.values(lifetime()))
      expect(toStoredRun(runPut(run, where.new()).Item)).toEqual({ ...run, dueAt: run.dueAt ?? null });
  });

  it("keeps as attributes what indexes, conditions and the sweep read, and weighs under 1 KB (one write unit)", () => {
    for (const [state, run] of Object.entries(lifetime())) {
      const { Item } = runPut(run, where.new());
      expect(Item, state).toMatchObject({ id: run.id, status: run.status });
      expect(Item.rev, state).toBe(run.rev);
      expect(Item, state).not.toHaveProperty("steps");
      expect(sizeOfItem(Item), state).toBeLessThan(1024);
      // Unpacked it weighed 1.7–1.9 KB: two write units a put, four in a transaction.
      expect(sizeOfItem(AutomationRunEntity.put(run).Item), state).toBeGreaterThan(1024);
    }
  });

  it("reads a run stored before runs were packed, its fields as attributes, as it was", () => {
    const { ended } = lifetime();
    expect(toStoredRun(AutomationRunEntity.put(ended).Item)).toEqual(ended);
  });
});

describe("a packed run's bytes (format 1)", () => {
  /**
   * What `runPut` stored for `started` (the run at its trigger) on 2026-11-29: these bytes must inflate to it for as
   * long as any run is stored in format 1 (what a put writes today may differ if zlib's deflate changes; reading may not).
   */
  const golden =
    "AXi71lr/TKvGLBH8UssVQCnNSiEts6i4RKEktaIEeylhTJ1SwsDQ18LbNdLCMdzd0sTLOCIkzM3JIszEzc+IxPIDr0FIGQaiLjzY1MLS19I4JMg8MNzdPTwyKCyCuDIHrz3DqDQiN2LoEiGEyjZDQ10jyxBDAytTIytDUz1DI+MorMUddnWoJSCpWZqw3bhyOXadSBlfl1o5HwBh3j0N";
  const item = (packed: Uint8Array) => ({
    pk: `ORG#${started.organizationId}#RUNS`,
    sk: `RUN#${started.automationId}#${started.id}`,
    entity: "AutomationRun",
    id: started.id,
    status: started.status,
    rev: started.rev,
    packed,
  });
  const stored = () => Buffer.from(golden, "base64");

  it("stored bytes always read back as the run they were written from", () => {
    expect(toStoredRun(item(stored()))).toEqual({ ...started, dueAt: null });
  });

  it("bytes of an unknown format, bytes deflated with another dictionary, or an item with no fields are unreadable", () => {
    const otherFormat = Buffer.concat([Uint8Array.of(2), stored().subarray(1)]);
    const packed = deflateSync(JSON.stringify({ steps: [] }), { dictionary: Buffer.from('"steps"') });
    const otherDictionary = Buffer.concat([Uint8Array.of(1), packed]);
    const { packed: _packed, ...bare } = item(stored());
    for (const unreadable of [item(otherFormat), item(otherDictionary), bare])
      expect(() => toStoredRun(unreadable)).toThrow(UnreadableItemError);
  });
});
