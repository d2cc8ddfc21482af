import { describe, expect, it } from "vitest";
import { dueWorkShardOf } from "#core/db/due";
import { AutomationRunEntity, AutomationTriggerEntity } from "#core/db/entities/automations";
import { carriedAutomationMaxBytes, triggerIndexWrites } from "#core/automations/runs/trigger-index";
import type { Automation } from "#core/automations/index";
import { spelled } from "#tests/helpers/expressions";

const automation = {
  id: "AUTO1",
  organizationId: "o1",
  enabled: true,
  triggers: [
    { id: "t1", type: "Schedule", isEnabled: true, settings: { intervalMinutes: 60 } },
    { id: "t2", type: "LeadCreated", isEnabled: true, settings: {} },
  ],
} as unknown as Automation;

describe("automation triggers and runs keep their due entries (the sweep's index)", () => {
  it("a Schedule trigger's entry is in the due index at its next firing, in its automation's shard; others are not; each carries its automation", () => {
    const now = Date.parse("2026-01-05T10:00:00.000Z");
    const [schedule, created] = triggerIndexWrites("o1", undefined, automation, "UTC", now).map((write) => write.Put!);
    expect(schedule!.Item).toEqual({
      pk: "ORG#o1",
      sk: "AUTOTRIGGER#Schedule#AUTO1#t1",
      gsi3pk: `DUESCHEDULES#${dueWorkShardOf("AUTO1")}`,
      gsi3sk: "2026-01-05T11:00:00.000Z#o1#AUTO1#t1",
      entity: "AutomationTrigger",
      automationId: "AUTO1",
      triggerId: "t1",
      type: "Schedule",
      settings: { intervalMinutes: 60 },
      nextFireAt: "2026-01-05T11:00:00.000Z",
      timeZone: "UTC",
      // The automation as its transaction writes it: the trigger fan-out starts runs from the entry (issue 27).
      automation,
    });
    expect(created!.Item).toEqual({
      pk: "ORG#o1",
      sk: "AUTOTRIGGER#LeadCreated#AUTO1#t2",
      entity: "AutomationTrigger",
      automationId: "AUTO1",
      triggerId: "t2",
      type: "LeadCreated",
      settings: {},
      automation,
    });
  });

  it("an automation larger than its entries may carry is left out of them (the fan-out reads it by id)", () => {
    const large = { ...automation, description: "x".repeat(carriedAutomationMaxBytes) } as Automation;
    const entries = triggerIndexWrites("o1", undefined, large, "UTC").map((write) => write.Put!.Item);
    expect(entries.map((entry) => [entry!.automationId, "automation" in entry!])).toEqual([
      ["AUTO1", false],
      ["AUTO1", false],
    ]);
  });

  it("disabling an automation deletes its entries by key", () => {
    const writes = triggerIndexWrites("o1", automation, { ...automation, enabled: false }, "UTC");
    expect(writes.map((write) => write.Delete!.Key)).toEqual([
      { pk: "ORG#o1", sk: "AUTOTRIGGER#Schedule#AUTO1#t1" },
      { pk: "ORG#o1", sk: "AUTOTRIGGER#LeadCreated#AUTO1#t2" },
    ]);
  });

  it("the sweep's claim of a firing moves the entry to the next one, only if it is where it was read", () => {
    const trigger = { organizationId: "o1", type: "Schedule", automationId: "AUTO1", triggerId: "t1" };
    const seen = "2026-01-05T11:00:00.000Z#o1#AUTO1#t1";
    const claim = AutomationTriggerEntity.update(
      trigger,
      { nextFireAt: "2026-01-05T12:00:00.000Z" },
      { condition: AutomationTriggerEntity.indexedAt("due", seen) },
    );
    expect(claim.Key).toEqual({ pk: "ORG#o1", sk: "AUTOTRIGGER#Schedule#AUTO1#t1" });
    expect(spelled(claim)).toBe(
      'SET nextFireAt = "2026-01-05T12:00:00.000Z", ' +
        `gsi3pk = "DUESCHEDULES#${dueWorkShardOf("AUTO1")}", gsi3sk = "2026-01-05T12:00:00.000Z#o1#AUTO1#t1"`,
    );
    expect(spelled(claim, "ConditionExpression")).toBe(`gsi3sk = "${seen}"`);
  });

  it("a run's due entry is in its run's shard, and the sweep's claim moves it a stall later", () => {
    const run = { organizationId: "o1", automationId: "AUTO1", id: "RUN1" };
    expect(AutomationRunEntity.entryIn("due", { ...run, dueAt: "2026-01-05T10:02:00.000Z" })).toEqual({
      gsi3pk: `DUERUNS#${dueWorkShardOf("RUN1")}`,
      gsi3sk: "2026-01-05T10:02:00.000Z#o1#AUTO1#RUN1",
    });
    const claim = AutomationRunEntity.update(
      run,
      { dueAt: "2026-01-05T10:04:00.000Z" },
      {
        condition: AutomationRunEntity.indexedAt("due", "2026-01-05T10:02:00.000Z#o1#AUTO1#RUN1"),
        enter: { due: { dueAt: "2026-01-05T10:04:00.000Z" } },
      },
    );
    expect(claim.Key).toEqual({ pk: "ORG#o1#RUN#AUTO1#RUN1", sk: "RUN#AUTO1#RUN1" });
    expect(spelled(claim)).toBe(
      'SET dueAt = "2026-01-05T10:04:00.000Z", ' +
        `gsi3pk = "DUERUNS#${dueWorkShardOf("RUN1")}", gsi3sk = "2026-01-05T10:04:00.000Z#o1#AUTO1#RUN1"`,
    );
    expect(spelled(claim, "ConditionExpression")).toBe('gsi3sk = "2026-01-05T10:02:00.000Z#o1#AUTO1#RUN1"');
  });
});
