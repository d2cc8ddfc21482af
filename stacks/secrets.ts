/**
 * Settings that must never live in source: set per stage with
 * `npx sst secret set <Name> <value> --stage <stage>` (see README, "Deploying to AWS").
 */

/** Key that signs continuation tokens (and locally issued user tokens). */
export const tokenSigningKey = new sst.Secret("TokenSigningKey");

/** Twilio REST credentials; empty until a Twilio account is connected. */
export const twilioAccountSid = new sst.Secret("TwilioAccountSid", "");
export const twilioAuthToken = new sst.Secret("TwilioAuthToken", "");
/** A revocable Twilio API key and its secret: what REST requests authenticate with. */
export const twilioApiKeySid = new sst.Secret("TwilioApiKeySid", "");
export const twilioApiKeySecret = new sst.Secret("TwilioApiKeySecret", "");

/** Telnyx: the API key (REST) and the account's webhook public key; empty unless the stage sends through Telnyx (`PROVIDER=telnyx`). */
export const telnyxApiKey = new sst.Secret("TelnyxApiKey", "");
export const telnyxPublicKey = new sst.Secret("TelnyxPublicKey", "");

/** Stripe secret key (top-ups create Checkout Sessions with it) and the signing secret of the `/webhooks/payments/stripe` endpoint; see docs/payments.md. */
export const stripeSecretKey = new sst.Secret("StripeSecretKey", "");
export const stripeWebhookSecret = new sst.Secret("StripeWebhookSecret", "");
