import { describe, expect, it } from "vitest";
import { basisForContact, type ConsentBasis, type LeadConsentState } from "#core/consent/basis";

const at = "2026-03-01T12:00:00.000Z";
const certificate: ConsentBasis = { kind: "Certificate", evidenceId: "CERTIFICATE", reference: "abc123", at };
const state = (overrides: Partial<LeadConsentState>): LeadConsentState => ({
  policy: "require",
  optedIn: false,
  optedOut: false,
  basis: null,
  ...overrides,
});

describe("basisForContact", () => {
  it("uses the lead's own basis while it is opted in, whoever sends", () => {
    expect(basisForContact(state({ optedIn: true, basis: certificate }), { kind: "Automated" }, at)).toEqual({
      basis: certificate,
    });
    expect(basisForContact(state({ optedIn: true, basis: certificate }), { kind: "Agent", userId: "u1" }, at)).toEqual({
      basis: certificate,
    });
  });

  it("records an agent's one-to-one contact when the lead holds no consent", () => {
    expect(basisForContact(state({}), { kind: "Agent", userId: "u1" }, at)).toEqual({
      basis: { kind: "ManualOneToOne", evidenceId: null, reference: "u1", at },
    });
  });

  it("refuses automated contact under require without a basis, and lets it go without one under allow or without a lead", () => {
    expect(basisForContact(state({}), { kind: "Automated" }, at)).toEqual({
      refused: expect.stringMatching(/requires a verified consent/),
    });
    expect(basisForContact(state({ optedIn: false, basis: certificate }), { kind: "Automated" }, at)).toHaveProperty(
      "refused",
    );
    expect(basisForContact(state({ policy: "allow" }), { kind: "Automated" }, at)).toEqual({ basis: null });
    expect(basisForContact(undefined, { kind: "Automated" }, at)).toEqual({ basis: null });
  });
});
