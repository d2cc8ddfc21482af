import { describe, expect, it } from "vitest";
import { classifyInbound } from "#core/messaging/keywords";

describe("inbound keyword classification", () => {
  it.each([
    ["STOP", "OptOut", "STOP"],
    ["stop", "OptOut", "STOP"],
    ["  Stop \n", "OptOut", "STOP"],
    ["Stop.", "OptOut", "STOP"],
    ["STOP!", "OptOut", "STOP"],
    ["StopAll", "OptOut", "STOPALL"],
    ["unsubscribe", "OptOut", "UNSUBSCRIBE"],
    ["Cancel", "OptOut", "CANCEL"],
    ["end", "OptOut", "END"],
    ["QUIT", "OptOut", "QUIT"],
    ["ＳＴＯＰ", "OptOut", "STOP"],
    ["START", "OptIn", "START"],
    ["unstop", "OptIn", "UNSTOP"],
    ["Yes", "OptIn", "YES"],
    ["yes!", "OptIn", "YES"],
    ["HELP", "Help", "HELP"],
    ["help?", "Help", "HELP"],
    ["Info", "Help", "INFO"],
  ])("%j is %s", (body, kind, keyword) => {
    expect(classifyInbound(body)).toEqual({ kind, keyword });
  });

  it.each([
    "",
    "   ",
    "stop texting me",
    "please stop",
    "STOP STOP",
    "S T O P",
    "yes please",
    "Is this the help desk?",
    "Hello",
    "ST0P",
  ])("%j is an ordinary message", (body) => {
    expect(classifyInbound(body)).toEqual({ kind: "Message" });
  });
});
