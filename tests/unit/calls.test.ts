import { describe, expect, it } from "vitest";
import { normalizePathPhoneNumber } from "#core/calls/index";
import { selectCaller } from "#core/calls/sender";
import * as Twiml from "#core/calls/twiml";
import { xmlEscape } from "#core/calls/twiml";
import { ValidationError } from "#core/errors";
import type { PhoneNumber } from "#core/messaging/phone-numbers";
import { dialOutcome, parseDial } from "#core/providers/simulator/calls";

const number = (
  id: string,
  phoneNumber: string,
  capabilities: string[],
  lastUsedAt: string | null = null,
): PhoneNumber => ({
  id,
  phoneNumber,
  friendlyName: null,
  capabilities,
  areaCode: phoneNumber.slice(2, 5),
  lastUsedAt,
  createdAt: `2026-01-01T00:00:0${id.length}.000Z`,
  modifiedAt: null,
  registration: null,
  paused: null,
  messagesPerSecond: null,
  assignedUserId: null,
});

const ny = number("ny", "+12125550100", ["sms", "voice"], "2026-01-02T00:00:00.000Z");
const nyOld = number("ny2", "+12125550111", ["voice"], "2026-01-01T00:00:00.000Z");
const la = number("la", "+14155550100", ["sms", "voice"]);
const smsOnly = number("sms", "+13125550100", ["sms"]);

describe("calling number selection", () => {
  it("takes the caller's voice-capable choice first", () => {
    expect(selectCaller({ numbers: [ny, la], to: "+12125550199", overrideId: "la", stickyId: "ny" })).toMatchObject({
      number: la,
      reason: "ManualOverride",
    });
  });

  it("keeps the conversation's sticky number, then prefers the recipient's area code, least recently used", () => {
    expect(
      selectCaller({ numbers: [ny, la], to: "+12125550199", overrideId: undefined, stickyId: "la" }),
    ).toMatchObject({ reason: "StickyConversation", number: la });
    expect(
      selectCaller({ numbers: [ny, nyOld, la], to: "+12125550199", overrideId: undefined, stickyId: null }),
    ).toMatchObject({ reason: "AreaCodeMatch", number: nyOld });
    expect(
      selectCaller({ numbers: [ny, la], to: "+13125550199", overrideId: undefined, stickyId: null }),
    ).toMatchObject({ reason: "LeastRecentlyUsed", number: la });
  });

  it("never picks a number without the voice capability", () => {
    expect(
      selectCaller({ numbers: [smsOnly], to: "+13125550199", overrideId: "sms", stickyId: "sms" }),
    ).toBeUndefined();
  });
});

describe("endpoint 14 path numbers", () => {
  it.each([
    ["%2B12125550100", "+12125550100"],
    ["+12125550100", "+12125550100"],
    [" 12125550100", "+12125550100"],
    ["2125550100", "+12125550100"],
    ["%2B1%20(212)%20555-0100", "+12125550100"],
  ])("normalises %j to %s", (raw, e164) => {
    expect(normalizePathPhoneNumber(raw)).toBe(e164);
  });

  it.each([["12ab"], ["%2B1"], ["+1555"], ["%zz"]])("refuses %j with a pointer to the path parameter", (raw) => {
    try {
      normalizePathPhoneNumber(raw);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).errors[0]).toMatchObject({ in: "path", field: "phoneNumber" });
    }
  });
});

describe("inbound call instructions (TwiML)", () => {
  it("forwards with the ring time, the caller's number and an escaped action URL the simulator reads back", () => {
    const action = "https://api.example.com/webhooks/twilio/calls/dial?callId=01J&stage=<x>";
    const twiml = Twiml.forward({ forwardTo: "+14155550120", ringSeconds: 25, action, callerId: "+13125550187" });
    expect(twiml).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Dial timeout="25" action="https://api.example.com/webhooks/twilio/calls/dial?callId=01J&amp;stage=&lt;x&gt;" method="POST" callerId="+13125550187"><Number>+14155550120</Number></Dial></Response>',
    );
    expect(parseDial(twiml)).toEqual({
      forwardTo: "+14155550120",
      timeoutSeconds: 25,
      action,
      callerId: "+13125550187",
    });
    expect(xmlEscape(`a&b<c>"d'`)).toBe("a&amp;b&lt;c&gt;&quot;d&apos;");
  });

  it("caps the forwarded leg's talk time with the Dial's timeLimit when given", () => {
    const twiml = Twiml.forward({
      forwardTo: "+14155550120",
      ringSeconds: 20,
      action: "https://api.example.com/dial",
      callerId: "+13125550187",
      timeLimitSeconds: 1800,
    });
    expect(twiml).toContain('<Dial timeout="20" timeLimit="1800" action="https://api.example.com/dial" method="POST"');
    expect(parseDial(twiml)).toEqual({
      forwardTo: "+14155550120",
      timeoutSeconds: 20,
      action: "https://api.example.com/dial",
      callerId: "+13125550187",
    });
  });

  it("says nobody can take an unforwarded call and hangs up; after a Dial, an unanswered caller hears an apology", () => {
    expect(Twiml.unattended()).toMatch(
      /<Response><Say>Thank you for calling\. Nobody can take your call right now;[^<]*<\/Say><Hangup\/><\/Response>$/,
    );
    expect(parseDial(Twiml.unattended())).toBeUndefined();
    expect(Twiml.afterDial(true)).toMatch(/<Response><\/Response>$/);
    expect(Twiml.afterDial(false)).toContain("<Hangup/>");
    expect(Twiml.reject()).toContain("<Reject");
  });

  it("simulates the forwarded number's scenario as the Dial outcome", () => {
    expect(dialOutcome("+14155550120")).toEqual({ word: "completed", talkSeconds: 42 });
    expect(dialOutcome("+14155550124")).toEqual({ word: "completed", talkSeconds: 125 });
    expect(dialOutcome("+14155550121")).toEqual({ word: "busy", talkSeconds: 0 });
    expect(dialOutcome("+14155550122")).toEqual({ word: "no-answer", talkSeconds: 0 });
    expect(dialOutcome("+14155550126")).toEqual({ word: "failed", talkSeconds: 0 });
    expect(dialOutcome("+14155550127")).toEqual({ word: "no-answer", talkSeconds: 0 });
    expect(dialOutcome("+14155551234")).toEqual({ word: "completed", talkSeconds: 42 });
  });
});

describe("an agent's own calling number", () => {
  const theirs = { ...la, id: "ann-la", assignedUserId: "ann" };
  it("calls for the agent from their own number, over a shared one of the lead's area code", () => {
    expect(
      selectCaller({ numbers: [ny, theirs], to: "+12125550199", overrideId: undefined, stickyId: null, agent: "ann" }),
    ).toMatchObject({ reason: "AgentNumber", number: theirs });
    // Someone else's lead never rings from Ann's number.
    expect(
      selectCaller({ numbers: [ny, theirs], to: "+14155550199", overrideId: undefined, stickyId: null, agent: "bob" }),
    ).toMatchObject({ reason: "LeastRecentlyUsed", number: ny });
  });
});
