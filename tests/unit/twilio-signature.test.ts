import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { twilioSignature, verifyTwilioSignature } from "#core/providers/twilio/signature";

// Twilio's documented example: auth token 12345 and these parameters sign to this value.
const documented = {
  authToken: "12345",
  url: "https://mycompany.com/myapp.php?foo=1&bar=2",
  params: {
    CallSid: "CA1234567890ABCDE",
    Caller: "+14158675309",
    Digits: "1234",
    From: "+14158675309",
    To: "+18005551212",
  },
  signature: "RSOYDt4T1cUTdK1PDd93/VVr8B8=",
};
const documentedBody = new URLSearchParams(documented.params).toString();

describe("X-Twilio-Signature", () => {
  it("reproduces Twilio's documented example signature", () => {
    expect(twilioSignature(documented.authToken, documented.url, Object.entries(documented.params))).toBe(
      documented.signature,
    );
  });

  it("sorts parameters by name whatever order they arrive in", () => {
    const reversed = Object.entries(documented.params).reverse();
    expect(twilioSignature(documented.authToken, documented.url, reversed)).toBe(documented.signature);
  });

  it("accepts the documented request", () => {
    expect(verifyTwilioSignature({ ...documented, body: documentedBody })).toBe(true);
  });

  it.each([
    ["a tampered parameter", { body: documentedBody.replace("Digits=1234", "Digits=9999") }],
    ["an extra parameter", { body: `${documentedBody}&Extra=1` }],
    ["another URL", { url: "https://mycompany.com/myapp.php?foo=1&bar=3" }],
    ["another auth token", { authToken: "54321" }],
    ["a missing signature", { signature: undefined }],
    ["an empty signature", { signature: "" }],
    ["a truncated signature", { signature: documented.signature.slice(0, 10) }],
    ["an empty auth token", { authToken: "" }],
  ])("rejects %s", (_name, change) => {
    expect(verifyTwilioSignature({ ...documented, body: documentedBody, ...change })).toBe(false);
  });

  it("accepts the URL with or without the default port", () => {
    const url = "https://api.example.com/webhooks/twilio/messages/status";
    const params: [string, string][] = [
      ["MessageSid", "SM1"],
      ["MessageStatus", "sent"],
    ];
    const body = new URLSearchParams(params).toString();
    const signedWithPort = twilioSignature(
      "token",
      "https://api.example.com:443/webhooks/twilio/messages/status",
      params,
    );
    expect(verifyTwilioSignature({ authToken: "token", url, body, signature: signedWithPort })).toBe(true);
    const signedWithout = twilioSignature("token", url, params);
    expect(
      verifyTwilioSignature({
        authToken: "token",
        url: "https://api.example.com:443/webhooks/twilio/messages/status",
        body,
        signature: signedWithout,
      }),
    ).toBe(true);
    expect(
      verifyTwilioSignature({
        authToken: "token",
        url: "https://api.example.com:8443/webhooks/twilio/messages/status",
        body,
        signature: signedWithout,
      }),
    ).toBe(false);
  });

  it("signs repeated parameters with each value, sorted", () => {
    const url = "https://example.com/hook";
    const a = twilioSignature("token", url, [
      ["MediaUrl", "b"],
      ["MediaUrl", "a"],
    ]);
    const b = twilioSignature("token", url, [
      ["MediaUrl", "a"],
      ["MediaUrl", "b"],
    ]);
    expect(a).toBe(b);
    expect(verifyTwilioSignature({ authToken: "token", url, body: "MediaUrl=b&MediaUrl=a", signature: a })).toBe(true);
  });

  it("keeps the URL exactly as configured (encoded query included)", () => {
    const url = "https://example.com/hook?name=a%20b&x=%2B1";
    const signature = twilioSignature("token", url);
    expect(verifyTwilioSignature({ authToken: "token", url, body: "", signature })).toBe(true);
    expect(
      verifyTwilioSignature({ authToken: "token", url: "https://example.com/hook?name=a b&x=+1", body: "", signature }),
    ).toBe(false);
  });

  it("validates JSON webhooks by URL signature and body hash", () => {
    const body = JSON.stringify({ event: "message.delivered", sid: "SM1" });
    const hash = createHash("sha256").update(body).digest("hex");
    const url = `https://example.com/hook?bodySHA256=${hash}`;
    const signature = twilioSignature("token", url);
    const contentType = "application/json";
    expect(verifyTwilioSignature({ authToken: "token", url, body, signature, contentType })).toBe(true);
    expect(
      verifyTwilioSignature({ authToken: "token", url, body: body.replace("SM1", "SM2"), signature, contentType }),
    ).toBe(false);
    expect(
      verifyTwilioSignature({
        authToken: "token",
        url: "https://example.com/hook",
        body,
        signature: twilioSignature("token", "https://example.com/hook"),
        contentType,
      }),
    ).toBe(false);
  });
});
