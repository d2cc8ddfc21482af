import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { carrierRequests, decideRegistration, onCarrier } from "#tests/helpers/carriers";
import { brandBody, campaignBody, killedThenRetried } from "#tests/helpers/registration";
import { applyStackEnv, newOrganization } from "#tests/helpers/stack";
import { handler as registerBrand } from "#functions/carrier-registration/register-brand";
import { handler as registerCampaign } from "#functions/carrier-registration/register-campaign";

/**
 * 10DLC submissions are billed by the registry, so a request cut short between the carrier's answer and our write
 * must not submit again when retried: the submission is stored first, and a retry asks the carrier for what it created
 * (Telnyx by the brand's referenceId or the campaign's fields; Twilio's case is in
 * tests/http/carrier-registration.test.ts, after the test that reads every TrustHub request). The process is killed right after the submission is stored: the carrier is then asked, and the write of its
 * answer dies (tests/helpers/crash.ts: only the process is cut short, DynamoDB Local is real).
 */

const posts = async (containing: string, path: string) =>
  (await carrierRequests(containing)).filter((entry) => entry.method === "POST" && entry.path === path);

describe("a 10DLC submission killed between the carrier and our write is submitted once", () => {
  applyStackEnv();

  it("Telnyx brand: the retry finds the brand by its referenceId and stores it; Telnyx got one submission", async () => {
    const org = await newOrganization();
    await onCarrier(org, "telnyx");
    const displayName = `Acme Roofing ${randomUUID().slice(0, 8)}`;
    const retry = await killedThenRetried(org, "/carrier-registration/brand", registerBrand, brandBody(displayName));

    const submitted = await posts(displayName, "/v2/10dlc/brand");
    expect(submitted.map((entry) => entry.answered)).toEqual([200]);
    expect(retry.status).toBe(201);
    expect(retry.body).toMatchObject({ provider: "telnyx", status: "Pending", displayName });
    // The brand Telnyx created for the first attempt, found by the reference that attempt sent.
    const lookups = (await carrierRequests(String(retry.body.providerBrandId))).map(({ method, path }) => ({
      method,
      path,
    }));
    expect(lookups).toContainEqual({ method: "GET", path: `/v2/10dlc/brand/${String(retry.body.providerBrandId)}` });
    expect((await org.request("GET", "/carrier-registration/brand")).body).toEqual(retry.body);
  });

  it("Telnyx campaign: the retry finds the brand's campaign with that description and stores it; Telnyx got one", async () => {
    const org = await newOrganization();
    await onCarrier(org, "telnyx");
    const brand = await org.request("POST", "/carrier-registration/brand", {
      body: brandBody(`Acme Roofing ${randomUUID().slice(0, 8)}`),
    });
    await decideRegistration(brand.body.providerBrandId, { status: "OK", identityStatus: "VERIFIED" });
    expect((await org.request("POST", "/carrier-registration/refresh")).body.brand.status).toBe("Approved");
    const description = `Replies to homeowners who asked for a quote (${randomUUID()}).`;

    const retry = await killedThenRetried(
      org,
      "/carrier-registration/campaigns",
      registerCampaign,
      campaignBody(description),
    );

    const submitted = await posts(description, "/v2/10dlc/campaignBuilder");
    expect(submitted.map((entry) => entry.answered)).toEqual([200]);
    expect(retry.status).toBe(201);
    expect(retry.body).toMatchObject({ description, status: "Pending" });
    expect((await org.request("GET", "/carrier-registration/campaigns")).body.items).toEqual([
      expect.objectContaining({ id: retry.body.id, providerCampaignId: retry.body.providerCampaignId }),
    ]);
  });
});
