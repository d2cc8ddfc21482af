/** `leadIntake` → `LeadIntake`: manifest keys become PascalCase SST resource names. */
export function resourceName(manifestKey: string): string {
  return manifestKey.charAt(0).toUpperCase() + manifestKey.slice(1);
}
