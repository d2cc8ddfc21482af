import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import * as v from "valibot";
import { rolePermissions, type Actor } from "#core/auth/actor";
import { AutomationRequestSchema } from "#core/automations/definition";
import * as Automations from "#core/automations/automations";
import { executeAction, type ActionContext } from "#core/automations/runs/actions";
import { ValidationError } from "#core/errors";
import { newOrganization } from "#tests/helpers/stack";
import {
  egressFetch,
  privateTargetCause,
  PrivateTargetError,
  publicAddresses,
  type Resolve,
} from "#core/automations/runs/egress";
import { environmentNames } from "#stacks/definitions";

// A rebinding host for the whole HttpRequest path: public for the first lookup (the early check), loopback after.
const rebinding = vi.hoisted(() => ({ lookups: 0 }));
vi.mock("node:dns/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:dns/promises")>();
  const lookup = ((hostname: string, options: object) =>
    hostname === "rebind.test"
      ? Promise.resolve([{ address: rebinding.lookups++ === 0 ? "93.184.215.14" : "127.0.0.1", family: 4 }])
      : actual.lookup(hostname, options)) as typeof actual.lookup;
  return { ...actual, lookup, default: { ...actual, lookup } };
});

/** A receiver on loopback that counts the requests reaching it. */
let server: Server;
let port: number;
let hits = 0;
const allowPrivate = environmentNames.automationHttpAllowPrivate;
let before: string | undefined;

beforeAll(async () => {
  server = createServer((_request, response) => {
    hits++;
    response.end("reached");
  }).listen(0, "127.0.0.1");
  await once(server, "listening");
  port = (server.address() as AddressInfo).port;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});
beforeEach(() => {
  before = process.env[allowPrivate];
  process.env[allowPrivate] = "false";
  hits = 0;
});
afterEach(() => {
  if (before === undefined) delete process.env[allowPrivate];
  else process.env[allowPrivate] = before;
});

const refusalOf = (promise: Promise<unknown>) => promise.then(() => undefined, privateTargetCause);

const hookContext = (url: string): ActionContext =>
  ({
    run: {
      id: "01RUN",
      automationId: "01AUTOMATION",
      automationName: "Egress",
      leadId: null,
      trigger: { type: "Manual", eventId: null },
    },
    step: { seq: 1, nodeId: "hook", attempts: 0 },
    action: { id: "hook", type: "HttpRequest", settings: { url, method: "POST", timeoutMs: 2_000, maxRetries: 3 } },
    lead: undefined,
    organization: { name: "Egress", timeZone: "UTC" },
    now: Date.now(),
    effectId: "01EFFECT",
  }) as unknown as ActionContext;

describe("HttpRequest connections with private targets disallowed", () => {
  it("refuses a host name resolving to loopback when connecting, with no check before it", async () => {
    const refusal = await refusalOf(egressFetch(`http://localhost:${port}/hook`, { method: "POST", body: "{}" }));
    expect(refusal).toBeInstanceOf(PrivateTargetError);
    expect(refusal?.message).toMatch(
      /^The host localhost resolves to a private or loopback address \((127\.0\.0\.1|::1)\)/,
    );
    expect(hits).toBe(0);

    process.env[allowPrivate] = "true";
    const allowed = await egressFetch(`http://localhost:${port}/hook`, { method: "POST", body: "{}" });
    expect([allowed.status, await allowed.text(), hits]).toEqual([200, "reached", 1]);
  });

  it("refuses loopback IP literals, IPv4-mapped IPv6 in hex form included, when connecting", async () => {
    for (const host of ["127.0.0.1", "[::ffff:7f00:1]", "[::ffff:127.0.0.1]"]) {
      expect(await refusalOf(egressFetch(`http://${host}:${port}/hook`, { method: "GET" })), host).toBeInstanceOf(
        PrivateTargetError,
      );
    }
    expect(hits).toBe(0);
  });

  it("connects only to addresses it checked itself, so a host that rebinds after a check does not reach loopback", async () => {
    let lookups = 0;
    const rebind: Resolve = async () => [{ address: lookups++ === 0 ? "93.184.215.14" : "127.0.0.1", family: 4 }];
    expect(await publicAddresses("rebind.example", rebind)).toEqual([{ address: "93.184.215.14", family: 4 }]);

    const refusal = await refusalOf(
      egressFetch(`http://rebind.example:${port}/hook`, { method: "GET" }, false, rebind),
    );
    expect(refusal?.message).toMatch(/rebind\.example resolves to a private or loopback address \(127\.0\.0\.1\)/);
    expect(lookups).toBe(2);
    expect(hits).toBe(0);
  });

  it("fails a rebinding HttpRequest step for good, without retrying or reaching the receiver", async () => {
    rebinding.lookups = 0;
    const outcome = await executeAction(hookContext(`http://rebind.test:${port}/hook`));
    expect(rebinding.lookups).toBe(2);
    expect(outcome).toMatchObject({
      kind: "failed",
      error:
        "The host rebind.test resolves to a private or loopback address (127.0.0.1); automations may only call public receivers.",
    });
    expect(hits).toBe(0);
  });

  it("refuses a step whose host resolves to loopback before sending anything", async () => {
    const outcome = await executeAction(hookContext(`http://localhost:${port}/hook`));
    expect(outcome).toMatchObject({
      kind: "failed",
      error: expect.stringMatching(/^The host localhost resolves to a private or loopback address/),
    });
    expect(hits).toBe(0);
  });
});

describe("saving an automation with private targets disallowed", () => {
  it("refuses an HttpRequest action aimed at a loopback address, pointing at its url", async () => {
    const organization = await newOrganization();
    process.env[allowPrivate] = "false"; // newOrganization applies the local stack's environment, which allows them
    const actor: Actor = {
      organizationId: organization.organizationId,
      kind: "user",
      userId: "owner",
      role: "owner",
      permissions: rolePermissions.owner,
      displayName: "Owner",
    };
    const definition = (url: string) =>
      v.parse(AutomationRequestSchema, {
        name: "Private hook",
        triggers: [{ id: "t1", type: "LeadCreated", isEnabled: true, settings: {} }],
        actions: [{ id: "a1", type: "HttpRequest", isEnabled: true, settings: { url } }],
        connections: [{ id: "c1", sourceNodeId: "t1", targetNodeId: "a1" }],
      });
    const refusal = await Automations.create(actor, definition(`http://127.0.0.1:${port}/hook`)).catch(
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(ValidationError);
    expect((refusal as ValidationError).errors).toEqual([
      { pointer: "/actions/0/settings/url", detail: expect.stringMatching(/private or loopback/) },
    ]);
    const saved = await Automations.create(actor, definition("http://8.8.8.8/hook"));
    expect(saved.actions).toHaveLength(1);
  });
});
