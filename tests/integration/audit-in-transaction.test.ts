import * as v from "valibot";
import { describe, expect, it } from "vitest";
import * as Audit from "#core/audit/index";
import { ListAuditLogSchema } from "#core/audit/index";
import * as Automations from "#core/automations/automations";
import { AutomationRequestSchema } from "#core/automations/index";
import { db } from "#core/db/client";
import { table } from "#core/db/items";
import { keys } from "#core/db/keys";
import { ConflictError } from "#core/errors";
import * as MessagingSettingsStore from "#core/messaging/settings";
import { MessagingSettingsSchema } from "#core/messaging/settings";
import { replaceMessagingSettings } from "#core/messaging/settings-replace";
import * as Sources from "#core/sources/index";
import * as SuppressionAdmin from "#core/suppressions/admin";
import * as WebhookEndpoints from "#core/webhooks/endpoints";
import { operatorActor } from "#local/provision";
import { applyStackEnv, newOrganization } from "#tests/helpers/stack";

applyStackEnv();

/**
 * Audit entries of settings changes commit in the change's own transaction (issue 25): a crash cannot keep the change
 * and lose its entry, and a failed entry cannot follow a stored change. Observed on the real DynamoDB client (a
 * middleware records each transaction's items; armed, it lets another writer change the settings first).
 */
const transactions: { sk: string; kind: string }[][] = [];
let competitor: (() => Promise<void>) | undefined;
db().middlewareStack.add(
  (next) => async (args) => {
    const input = args.input as { TransactItems?: Record<string, { Item?: { sk?: string }; Key?: { sk?: string } }>[] };
    if (input.TransactItems) {
      transactions.push(
        input.TransactItems.map(
          (item) =>
            Object.entries(item).map(([kind, body]) => ({ kind, sk: String(body.Item?.sk ?? body.Key?.sk) }))[0]!,
        ),
      );
      const write = competitor;
      competitor = undefined;
      await write?.();
    }
    return next(args);
  },
  { step: "initialize", name: "recordTransactions" },
);

const auditEntries = async (organizationId: string) =>
  (await Audit.list(operatorActor(organizationId), v.parse(ListAuditLogSchema, {}))).items;

describe("audit entries of settings changes", () => {
  it("a messaging settings change and its entry (before and after) are one transaction", async () => {
    const org = await newOrganization();
    const actor = operatorActor(org.organizationId);
    transactions.length = 0;
    const saved = await replaceMessagingSettings(
      actor,
      v.parse(MessagingSettingsSchema, { helpText: "Acme: call us. Reply STOP to opt out." }),
    );
    expect(saved.helpText).toBe("Acme: call us. Reply STOP to opt out.");
    const ours = transactions.filter((items) => items.some((item) => item.sk === "SETTINGS#MESSAGING"));
    expect(ours).toHaveLength(1);
    expect(ours[0]!.map((item) => item.kind)).toEqual(["Put", "Put"]);
    expect(ours[0]![1]!.sk).toMatch(/^AUDIT#/);
    const [entry] = (await auditEntries(org.organizationId)).filter((candidate) => candidate.changes.helpText);
    expect(entry).toMatchObject({
      action: "messagingSettings.updated",
      resourceType: "MessagingSettings",
      resourceId: "messaging",
    });
    expect(entry!.changes.helpText).toEqual({
      before: expect.stringContaining("reply STOP to unsubscribe"),
      after: "Acme: call us. Reply STOP to opt out.",
    });
  });

  it("when another change lands between the read and the write, neither the change nor its entry is stored (409)", async () => {
    const org = await newOrganization();
    const actor = operatorActor(org.organizationId);
    await replaceMessagingSettings(
      actor,
      v.parse(MessagingSettingsSchema, { helpText: "First. Reply STOP to opt out." }),
    );
    competitor = () =>
      table
        .update({
          Key: keys.messagingSettings(org.organizationId),
          UpdateExpression: "SET helpText = :text, modifiedAt = :now",
          ExpressionAttributeValues: { ":text": "Meanwhile. Reply STOP to opt out.", ":now": new Date().toISOString() },
        })
        .then(() => undefined);

    const lost = await replaceMessagingSettings(
      actor,
      v.parse(MessagingSettingsSchema, { helpText: "Lost. Reply STOP to opt out." }),
    ).catch((error: unknown) => error);
    expect(lost).toBeInstanceOf(ConflictError);
    expect((await MessagingSettingsStore.read(org.organizationId)).helpText).toBe("Meanwhile. Reply STOP to opt out.");
    const entries = await auditEntries(org.organizationId);
    const helpTexts = entries.flatMap((entry) => (entry.changes.helpText ? [entry.changes.helpText.after] : []));
    expect(helpTexts).toEqual(["First. Reply STOP to opt out."]);
  });
});

/** The transactions since `from` that write the item whose sort key begins with `prefix`, as the kinds they hold. */
const writing = (from: number, prefix: string) =>
  transactions
    .slice(from)
    .filter((items) => items.some((item) => item.sk.startsWith(prefix)))
    .map((items) => items.map((item) => (item.sk.startsWith("AUDIT#") ? "audit" : item.kind)));

describe("audit entries of sources, webhook endpoints, suppressions and automations (issue 25)", () => {
  it("each change commits with its entry in one transaction", async () => {
    const org = await newOrganization();
    const actor = operatorActor(org.organizationId);
    const from = transactions.length;

    const { sourceId } = await Sources.create(actor, { name: "Billboard" });
    await Sources.update(actor, sourceId, { name: "Billboard east" });
    await Sources.rotateKey(actor, sourceId);
    await Sources.revokeKey(actor, sourceId);
    expect(writing(from, `SOURCE#${sourceId}`)).toEqual([
      ["Put", "audit"],
      ["Update", "audit"],
      ["Update", "audit"],
      ["Update", "audit"],
    ]);

    const { endpoint } = await WebhookEndpoints.create(actor, { url: "https://crm.example.com/hooks" });
    await WebhookEndpoints.update(actor, endpoint.id, { url: "https://crm.example.com/hooks2", enabled: false });
    await WebhookEndpoints.rotateSecret(actor, endpoint.id);
    await WebhookEndpoints.remove(actor, endpoint.id);
    expect(writing(from, `WEBHOOKENDPOINT#${endpoint.id}`)).toEqual([
      ["Put", "audit"],
      ["Update", "audit"],
      ["Update", "audit"],
      ["Delete", "audit"],
    ]);

    await SuppressionAdmin.create(actor, { phoneNumber: "+12125550147" });
    await SuppressionAdmin.remove(actor, "+12125550147");
    // Added with its SuppressionAdded event (the second Put) in the same transaction.
    expect(writing(from, "SUPPRESSION#+12125550147")).toEqual([
      ["Put", "Put", "audit"],
      ["Delete", "audit"],
    ]);

    const automation = await Automations.create(actor, v.parse(AutomationRequestSchema, { name: "Speed to lead" }));
    await Automations.update(
      actor,
      automation.id,
      v.parse(AutomationRequestSchema, { name: "Speed to lead", enabled: false }),
    );
    await Automations.remove(actor, automation.id);
    // With the trigger index entries of the automation (none here: no trigger) and the copies of its versions (created:
    // version 1; updated: the version read and the new one) in the same transaction.
    expect(writing(from, `AUTOMATION#${automation.id}`)).toEqual([
      ["Put", "Put", "audit"],
      ["Update", "Put", "Put", "audit"],
      ["Delete", "audit"],
    ]);

    // The test organization's setup records its quiet-hours change too.
    const entries = (await auditEntries(org.organizationId)).filter(
      (entry) => entry.resourceType !== "MessagingSettings",
    );
    expect(entries.map((entry) => entry.action).sort()).toEqual(
      [
        "source.created",
        "source.updated",
        "source.keyRotated",
        "source.keyRevoked",
        "webhookEndpoint.created",
        "webhookEndpoint.updated",
        "webhookEndpoint.secretRotated",
        "webhookEndpoint.deleted",
        "suppression.added",
        "suppression.removed",
        "automation.created",
        "automation.updated",
        "automation.deleted",
      ].sort(),
    );
    const disabled = entries.find((entry) => entry.action === "webhookEndpoint.updated")!;
    expect(disabled.changes.enabled).toEqual({ before: true, after: false });
    expect(entries.find((entry) => entry.action === "suppression.removed")!.changes.reason).toEqual({
      before: "Manual",
      after: null,
    });
  });

  it("a change another one overtook between its read and its write is made again on what is stored, its entry telling the truth", async () => {
    const org = await newOrganization();
    const actor = operatorActor(org.organizationId);
    const { sourceId } = await Sources.create(actor, { name: "First" });
    competitor = () =>
      table
        .update({
          Key: keys.source(org.organizationId, sourceId),
          UpdateExpression: "SET #name = :name, modifiedAt = :now",
          ExpressionAttributeNames: { "#name": "name" },
          ExpressionAttributeValues: { ":name": "Meanwhile", ":now": new Date().toISOString() },
        })
        .then(() => undefined);

    const updated = await Sources.update(actor, sourceId, { name: "Ours" });
    expect(updated.name).toBe("Ours");
    expect((await Sources.fromId(actor, sourceId)).name).toBe("Ours");
    const renames = (await auditEntries(org.organizationId)).flatMap((entry) =>
      entry.changes.name ? [entry.changes.name] : [],
    );
    // The entry's "before" is what the change replaced (the competitor's name), not what was first read.
    expect(renames).toEqual([
      { before: "Meanwhile", after: "Ours" },
      { before: null, after: "First" },
    ]);
  });
});
