import { describe, expect, it } from "vitest";
import { SenderNotRegisteredError } from "#core/errors";
import type { PhoneNumber } from "#core/messaging/phone-number-schema";
import {
  assertRegisteredSender,
  eligibleSenders,
  senderPool,
  senderRefusal,
} from "#core/messaging/sender-registration";

const number = (id: string, overrides: Partial<PhoneNumber> = {}): PhoneNumber => ({
  id,
  phoneNumber: `+1212555${id.padStart(4, "0")}`,
  friendlyName: null,
  capabilities: ["sms"],
  areaCode: "212",
  lastUsedAt: null,
  createdAt: "2026-01-01T00:00:00.000Z",
  modifiedAt: null,
  registration: null,
  paused: null,
  messagesPerSecond: null,
  assignedUserId: null,
  ...overrides,
});

const approved = number("1", { registration: { kind: "TenDlcCampaign", campaignId: "c1", status: "Approved" } });
const pending = number("2", { registration: { kind: "TenDlcCampaign", campaignId: "c2", status: "Pending" } });
const bare = number("3");
const pausedApproved = number("4", {
  registration: { kind: "TenDlcCampaign", campaignId: "c1", status: "Approved" },
  paused: { at: "2026-01-02T00:00:00.000Z", reason: "filtered" },
});

describe("sender eligibility", () => {
  it("where registration is required, only unpaused numbers on an approved campaign; elsewhere every unpaused number", () => {
    expect(eligibleSenders([approved, pending, bare, pausedApproved], true).map((n) => n.id)).toEqual(["1"]);
    expect(eligibleSenders([approved, pending, bare, pausedApproved], false).map((n) => n.id)).toEqual(["1", "2", "3"]);
  });

  it("says why a queued message has no sender: unregistered where required, else paused", () => {
    expect(senderRefusal(true).code).toBe("SenderNotRegistered");
    expect(senderRefusal(false).code).toBe("SenderPaused");
  });

  it("refuses at acceptance a chosen sender that is not registered, or a pool with no registered number able to send", () => {
    expect(() => assertRegisteredSender([], approved, "sms")).not.toThrow();
    expect(() => assertRegisteredSender([], pending, "sms")).toThrow(SenderNotRegisteredError);
    expect(() => assertRegisteredSender([pending, bare, approved], undefined, "sms")).not.toThrow();
    expect(() => assertRegisteredSender([pending, bare], undefined, "sms")).toThrow(
      /None of the organization's numbers/,
    );
    // MMS needs a registered number that can send MMS.
    expect(() => assertRegisteredSender([approved], undefined, "mms")).toThrow(SenderNotRegisteredError);
  });
});

describe("toll-free numbers", () => {
  const tollFree = (id: string, registration: PhoneNumber["registration"]) =>
    number(id, { phoneNumber: `+1888555${id.padStart(4, "0")}`, areaCode: "888", registration });
  const verified = tollFree("5", { kind: "TollFreeVerification", campaignId: null, status: "Approved" });
  const underReview = tollFree("6", { kind: "TollFreeVerification", campaignId: null, status: "Pending" });
  const rejected = tollFree("7", { kind: "TollFreeVerification", campaignId: null, status: "Rejected" });

  it("send once their toll-free verification is approved, never on a 10DLC campaign; a long code needs its campaign", () => {
    const onCampaign = tollFree("8", { kind: "TenDlcCampaign", campaignId: "c1", status: "Approved" });
    const longCodeVerified = number("9", {
      registration: { kind: "TollFreeVerification", campaignId: null, status: "Approved" },
    });
    expect(
      eligibleSenders([verified, underReview, rejected, onCampaign, longCodeVerified, approved], true).map((n) => n.id),
    ).toEqual(["5", "1"]);
  });

  it("a chosen toll-free sender not verified is refused saying where its verification stands", () => {
    expect(() => assertRegisteredSender([], verified, "sms")).not.toThrow();
    expect(() => assertRegisteredSender([], underReview, "sms")).toThrow(/toll-free verification is Pending/);
    expect(() => assertRegisteredSender([], rejected, "sms")).toThrow(/toll-free verification is Rejected/);
    expect(() => assertRegisteredSender([], tollFree("10", null), "sms")).toThrow(/without a toll-free verification/);
    expect(() => assertRegisteredSender([underReview, verified], undefined, "sms")).not.toThrow();
  });
});

describe("an agent's own numbers", () => {
  const ann = number("a", { assignedUserId: "ann" });
  const bob = number("b", { assignedUserId: "bob" });
  const pool = [number("p1"), number("p2")];
  const ids = (chosen: { pool: { id: string }[]; theirs: boolean }) => [chosen.pool.map((n) => n.id), chosen.theirs];

  it("an agent's conversation goes out from their own numbers, anyone else's from the shared pool only", () => {
    expect(ids(senderPool([ann, bob, ...pool], "ann"))).toEqual([["a"], true]);
    expect(ids(senderPool([ann, bob, ...pool], "carol"))).toEqual([["p1", "p2"], false]);
    expect(ids(senderPool([ann, bob, ...pool], null))).toEqual([["p1", "p2"], false]);
  });

  it("with no shared number left, any number rather than none", () => {
    expect(ids(senderPool([ann, bob], "carol"))).toEqual([["a", "b"], false]);
  });
});
