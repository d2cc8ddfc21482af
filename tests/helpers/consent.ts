import { randomUUID } from "node:crypto";
import { expect, inject } from "vitest";
import type { FakeCertificate, ReceivedRequest } from "#local/trustedform-fake";
import type { FakeLeadiDToken, ReceivedLeadiDRequest } from "#local/jornaya-fake";
import { environmentNames } from "#stacks/definitions";
import type { TestOrganization } from "#tests/helpers/stack";

const fakeUrl = () => inject("stackEnv")[environmentNames.trustedFormApiUrl]!;

/** Gives the organization its own TrustedForm account (PUT /consent/settings) and answers its API key. */
export async function withTrustedForm(org: TestOrganization): Promise<string> {
  const apiKey = `tf-${randomUUID()}`;
  const response = await org.request("PUT", "/consent/settings", { body: { trustedForm: { apiKey }, jornaya: null } });
  expect(response.status).toBe(200);
  return apiKey;
}

/**
 * Registers a certificate with the TrustedForm fake (again, with `certificateId`: it then answers as now given) and
 * answers its URL (on cert.trustedform.com, as sellers send it).
 */
export async function newCertificate(
  certificate: Omit<FakeCertificate, "certificateId"> & { certificateId?: string },
): Promise<{ certificateId: string; url: string }> {
  const certificateId =
    certificate.certificateId ?? randomUUID().replaceAll("-", "") + randomUUID().replaceAll("-", "").slice(0, 8);
  const response = await fetch(`${fakeUrl()}/__fake/certificates`, {
    method: "POST",
    body: JSON.stringify({ ...certificate, certificateId }),
  });
  expect(response.status).toBe(204);
  return { certificateId, url: `https://cert.trustedform.com/${certificateId}` };
}

/** The claims the fake received for one certificate. */
export async function claimsOf(certificateId: string): Promise<ReceivedRequest[]> {
  const response = await fetch(`${fakeUrl()}/__fake/requests?certificateId=${certificateId}`);
  return (await response.json()) as ReceivedRequest[];
}

/** A verified certificate of `phone` for the organization's account: the lead arrives OptedIn. */
export async function validCertificate(org: TestOrganization, phone: string): Promise<string> {
  const apiKey = await withTrustedForm(org);
  return (await newCertificate({ apiKey, phone })).url;
}

const jornayaUrl = () => inject("stackEnv")[environmentNames.jornayaApiUrl]!;

/**
 * Gives the organization a Jornaya account (PUT /consent/settings) and answers its account code; the TrustedForm
 * account is removed unless `keepTrustedForm` (a PUT keeps what it leaves out).
 */
export async function withJornaya(org: TestOrganization, { keepTrustedForm = false } = {}): Promise<string> {
  const accountCode = randomUUID();
  const response = await org.request("PUT", "/consent/settings", {
    body: { ...(keepTrustedForm ? {} : { trustedForm: null }), jornaya: { accountCode } },
  });
  expect(response.status).toBe(200);
  return accountCode;
}

/** Registers a LeadiD token with the Jornaya fake (the account it belongs to becomes known there) and answers it. */
export async function newLeadiDToken(token: Omit<FakeLeadiDToken, "token">): Promise<string> {
  const id = randomUUID().toUpperCase();
  const response = await fetch(`${jornayaUrl()}/__fake/tokens`, {
    method: "POST",
    body: JSON.stringify({ token: id, ...token }),
  });
  expect(response.status).toBe(204);
  return id;
}

/** The Authenticate requests the Jornaya fake received for one token. */
export async function leadiDRequestsOf(token: string): Promise<ReceivedLeadiDRequest[]> {
  const response = await fetch(`${jornayaUrl()}/__fake/requests?token=${token}`);
  return (await response.json()) as ReceivedLeadiDRequest[];
}
