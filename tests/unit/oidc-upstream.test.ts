import { describe, expect, it } from "vitest";
import { upstreamFromEnvironment } from "#core/identity/issuer";

describe("the stage's OIDC upstream, from the issuer function's environment", () => {
  it("is none without a client id, Google's preset with GOOGLE_CLIENT_ID", () => {
    expect(upstreamFromEnvironment({})).toBeUndefined();
    expect(upstreamFromEnvironment({ IDENTITY_OIDC_ISSUER: "https://login.example.com" })).toBeUndefined();
    expect(upstreamFromEnvironment({ GOOGLE_CLIENT_ID: "g-123" })).toEqual({
      name: "google",
      display: "Google",
      issuer: "https://accounts.google.com",
      clientId: "g-123",
    });
  });

  it("names any OpenID provider by issuer and client id, which wins over Google", () => {
    expect(
      upstreamFromEnvironment({
        IDENTITY_OIDC_ISSUER: "https://login.example.com/",
        IDENTITY_OIDC_NAME: "okta",
        IDENTITY_OIDC_DISPLAY: "Example SSO",
        OIDC_CLIENT_ID: "o-1",
        GOOGLE_CLIENT_ID: "g-123",
      }),
    ).toEqual({ name: "okta", display: "Example SSO", issuer: "https://login.example.com", clientId: "o-1" });
    expect(upstreamFromEnvironment({ IDENTITY_OIDC_ISSUER: "https://id.example.com", OIDC_CLIENT_ID: "c" })).toEqual({
      name: "oidc",
      display: "oidc",
      issuer: "https://id.example.com",
      clientId: "c",
    });
  });

  it("refuses, at cold start, a name that would shadow password or code, or an issuer not on https", () => {
    const base = { IDENTITY_OIDC_ISSUER: "https://id.example.com", OIDC_CLIENT_ID: "c" };
    expect(() => upstreamFromEnvironment({ ...base, IDENTITY_OIDC_NAME: "password" })).toThrow(/IDENTITY_OIDC_NAME/);
    expect(() => upstreamFromEnvironment({ ...base, IDENTITY_OIDC_NAME: "Okta SSO" })).toThrow(/IDENTITY_OIDC_NAME/);
    expect(() => upstreamFromEnvironment({ ...base, IDENTITY_OIDC_ISSUER: "http://id.example.com" })).toThrow(/https/);
  });
});
