import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { Audit, ListAuditLogSchema } from "#core/audit/index";
import { db } from "#core/db/client";
import { table } from "#core/db/items";
import { keys } from "#core/db/keys";
import { ConflictError } from "#core/errors";
import { MessagingSettingsSchema, MessagingSettingsStore } from "#core/messaging/settings";
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
    const saved = await MessagingSettingsStore.replace(
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
    await MessagingSettingsStore.replace(
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

    const lost = await MessagingSettingsStore.replace(
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
