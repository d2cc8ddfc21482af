import { parseArgs } from "node:util";
import { simulateInboundMessage, simulatorAuthToken } from "#core/providers/simulator/adapter";
import { environmentNames } from "#stacks/definitions";
import { defaultStateDir, readStackState } from "#local/state";

/**
 * Local only: a contact texts one of your numbers. Posts the carrier
 * simulator's signed inbound webhook to the running stack (npm start), exactly
 * as a provider would, so keywords (STOP, START, HELP) and unread
 * conversations can be tried by hand:
 *
 *   npx tsx local/simulate-inbound.ts --from +13125550187 --to +12125550123 --body "STOP"
 *   npx tsx local/simulate-inbound.ts --from ... --to ... --body "Photo" --media https://example.com/a.jpg
 */
const { values } = parseArgs({
  options: {
    from: { type: "string" },
    to: { type: "string" },
    body: { type: "string", default: "" },
    media: { type: "string", multiple: true },
    "content-type": { type: "string", default: "image/jpeg" },
  },
});

const state = await readStackState(defaultStateDir);
if (!state) {
  console.error("The local stack is not running: start it with `npm start`.");
  process.exit(1);
}
if (!values.from || !values.to) {
  console.error(
    "Usage: npx tsx local/simulate-inbound.ts --from +1... --to <one of your numbers> --body TEXT [--media URL ...]",
  );
  process.exit(1);
}
const result = await simulateInboundMessage({
  baseUrl: state.baseUrl,
  authToken: simulatorAuthToken(state.env[environmentNames.tokenSigningKey]!),
  from: values.from,
  to: values.to,
  body: values.body ?? "",
  media: (values.media ?? []).map((url) => ({ url, contentType: values["content-type"] ?? "image/jpeg" })),
});
console.log(JSON.stringify(result));
