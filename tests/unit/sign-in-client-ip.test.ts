import { describe, expect, it } from "vitest";
import { clientIp } from "#core/identity/sign-in-guard";

describe("the address sign-in limits count", () => {
  const event = { requestContext: { http: { sourceIp: "203.0.113.9" } } };

  it("is the function URL's source address when nothing fronts the issuer, whatever X-Forwarded-For claims", () => {
    expect(clientIp(event, "198.51.100.1", false)).toBe("203.0.113.9");
  });

  it("behind the CloudFront router, is the address CloudFront appended, not the client's own claims before it", () => {
    expect(clientIp({ requestContext: { http: { sourceIp: "130.176.0.1" } } }, "1.2.3.4, 198.51.100.7", true)).toBe(
      "198.51.100.7",
    );
    expect(clientIp(event, undefined, true)).toBe("203.0.113.9");
  });
});
