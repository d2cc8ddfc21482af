import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { db, tableName } from "#core/db/client";
import { keys } from "#core/db/keys";
import { outboundProvider, providerByName } from "#core/providers/index";
import { ProviderError, type ProviderPort } from "#core/providers/port";

/**
 * The carrier an organization sends, calls and buys numbers through: its
 * messaging settings' `provider`, else the stage's (`PROVIDER`). Read on its
 * own (one projected item read) so the senders need not load the settings.
 * A choice the deployment no longer has credentials for refuses permanently,
 * like an unconfigured stage provider.
 */
export async function organizationProvider(organizationId: string): Promise<ProviderPort> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.messagingSettings(organizationId), ProjectionExpression: "#provider", ExpressionAttributeNames: { "#provider": "provider" } }),
  );
  const chosen = Item?.provider as string | null | undefined;
  if (!chosen) return outboundProvider();
  const provider = providerByName(chosen);
  if (!provider) throw new ProviderError("permanent", "provider_not_configured", `The organization's provider ${chosen} is not configured on this deployment.`);
  return provider;
}
