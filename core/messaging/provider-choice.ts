import { storedSettingsItem } from "#core/messaging/settings-item";
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
  return (await organizationProviders(organizationId)).primary;
}

/**
 * The organization's provider and, when its settings name one, the failover
 * provider of its message sends (undefined when off, or no longer configured
 * here: a send then just has no second chance). Same single read.
 */
export async function organizationProviders(
  organizationId: string,
): Promise<{ primary: ProviderPort; failover?: ProviderPort }> {
  const Item = await storedSettingsItem.read(organizationId);
  const chosen = Item?.provider as string | null | undefined;
  let primary: ProviderPort;
  if (!chosen) primary = outboundProvider();
  else {
    const provider = providerByName(chosen);
    if (!provider)
      throw new ProviderError(
        "permanent",
        "provider_not_configured",
        `The organization's provider ${chosen} is not configured on this deployment.`,
      );
    primary = provider;
  }
  const failoverName = Item?.failoverProvider as string | null | undefined;
  const failover = failoverName && failoverName !== primary.name ? providerByName(failoverName) : undefined;
  return { primary, ...(failover ? { failover } : {}) };
}
