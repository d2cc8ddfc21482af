import { afterEach, describe, expect, it } from "vitest";
import { outboundProvider, providerByName } from "#core/providers/index";
import { ProviderError } from "#core/providers/port";

/** The deploy refuses a stage without carrier credentials (tests/unit/stacks.test.ts); this is the runtime's own guard. */
describe("the carrier simulator inside Lambda", () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it("is never used in a Lambda function: sends fail permanently with provider_not_configured and its webhooks are unknown", () => {
    Object.assign(process.env, {
      PROVIDER: "simulator",
      TOKEN_SIGNING_KEY: "k",
      AWS_LAMBDA_FUNCTION_NAME: "lead-messaging-api-prod-Send",
    });
    expect(providerByName("simulator")).toBeUndefined();
    let refusal: unknown;
    try {
      outboundProvider();
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(ProviderError);
    expect(refusal).toMatchObject({ kind: "permanent", code: "provider_not_configured" });
    expect((refusal as Error).message).toMatch(/simulator does not run in AWS/);
  });

  it("still runs on the local stack, where no Lambda runtime variable is set", () => {
    Object.assign(process.env, { PROVIDER: "simulator", TOKEN_SIGNING_KEY: "k" });
    delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    expect(providerByName("simulator")?.name).toBe("simulator");
  });
});
