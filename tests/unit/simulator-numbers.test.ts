import { describe, expect, it } from "vitest";
import { isValidPhone } from "#core/shared/phone";
import { callLifecycle, messageLifecycle, type CallStatus, type MessageStatus } from "#core/shared/status";
import {
  CALL_SCENARIOS,
  MESSAGE_SCENARIOS,
  callScenario,
  magicSuffix,
  messageScenario,
  sendAttemptError,
} from "#core/providers/simulator/numbers";

describe("simulator magic numbers", () => {
  it.each([
    ["+12025550100", "Delivered"],
    ["+12025550101", "Failed"],
    ["+13125550102", "Undelivered"],
    ["+14155550103", "TransientThenDelivered"],
    ["+12025550104", "AlwaysTransient"],
    ["+12025550105", "SlowDelivery"],
    ["+12025550106", "OptedOut"],
    ["+12025550107", "InvalidNumber"],
    ["+12025550108", "NoReceipt"],
    ["+12025550109", "OutOfOrder"],
    ["+12025550110", "DuplicateCallbacks"],
    ["+12025550111", "CarrierFiltered"],
    ["+12025550142", "Delivered"],
    ["+12025550199", "Delivered"],
    ["+442079460958", "Delivered"],
  ])("a message to %s is %s", (to, name) => {
    expect(messageScenario(to).name).toBe(name);
  });

  it.each([
    ["+12025550120", "Answered"],
    ["+12025550121", "Busy"],
    ["+12025550122", "NoAnswer"],
    ["+12025550123", "Failed"],
    ["+12025550124", "LongCall"],
    ["+12025550125", "Recorded"],
    ["+12025550126", "InvalidNumber"],
    ["+12025550127", "RingsOut"],
    ["+12025550128", "Silent"],
    ["+12025550101", "Answered"],
    ["+13125551234", "Answered"],
  ])("a call to %s is %s", (to, name) => {
    expect(callScenario(to).name).toBe(name);
  });

  it("only numbers in the fictional 555-01XX range are magic", () => {
    expect(magicSuffix("+12025550106")).toBe("06");
    expect(magicSuffix("+12025550206")).toBeUndefined();
    expect(magicSuffix("+15550100106")).toBeUndefined();
    expect(magicSuffix("12025550106")).toBeUndefined();
  });

  it("every magic number passes phone validation (under any real area code)", () => {
    for (const suffix of [...Object.keys(MESSAGE_SCENARIOS), ...Object.keys(CALL_SCENARIOS)]) {
      for (const areaCode of ["202", "312", "415", "416"])
        expect(isValidPhone(`+1${areaCode}55501${suffix}`)).toBe(true);
    }
  });

  it("fails the first attempt only of a transient-then-success number", () => {
    const scenario = messageScenario("+12025550103");
    expect(sendAttemptError(scenario, 1)).toEqual({ kind: "transient", code: "20429", message: "Too Many Requests" });
    expect(sendAttemptError(scenario, 2)).toBeUndefined();
  });

  it("fails every attempt of an always-transient, opted-out or invalid number", () => {
    for (const [to, kind] of [
      ["+12025550104", "transient"],
      ["+12025550106", "optedOut"],
      ["+12025550107", "permanent"],
    ] as const) {
      for (const attempt of [1, 2, 10]) expect(sendAttemptError(messageScenario(to), attempt)?.kind).toBe(kind);
    }
    expect(sendAttemptError(messageScenario("+12025550100"), 1)).toBeUndefined();
  });

  it("emits callbacks in time order, ending on a final status unless the scenario says otherwise", () => {
    const unfinished = new Set(["NoReceipt", "OutOfOrder", "AlwaysTransient", "OptedOut", "InvalidNumber"]);
    for (const scenario of Object.values(MESSAGE_SCENARIOS)) {
      const times = scenario.callbacks.map((callback) => callback.afterMs);
      expect(times).toEqual([...times].sort((a, b) => a - b));
      const last = scenario.callbacks.at(-1)?.status as MessageStatus | undefined;
      if (!unfinished.has(scenario.name)) expect(last !== undefined && messageLifecycle.isFinal(last)).toBe(true);
    }
    for (const scenario of Object.values(CALL_SCENARIOS)) {
      const last = scenario.callbacks.at(-1)?.status as CallStatus | undefined;
      if (scenario.name !== "InvalidNumber") expect(last !== undefined && callLifecycle.isFinal(last)).toBe(true);
    }
  });

  it("out-of-order callbacks still end Delivered under the status rules", () => {
    const statuses = messageScenario("+12025550109").callbacks.map((callback) => callback.status);
    const final = statuses.reduce<MessageStatus>(
      (current, next) => messageLifecycle.applyTransition(current, next).status,
      "Sending",
    );
    expect(final).toBe("Delivered");
  });

  it("reports the talk time of answered calls", () => {
    expect(callScenario("+12025550124").durationSeconds).toBe(125);
    expect(callScenario("+12025550122").durationSeconds).toBe(0);
    expect(callScenario("+12025550125").recording).toBe(true);
  });
});
