import { fallbackRoute, routes } from "./definitions.ts";
import { handlerArgs, withDefaults } from "./functions.ts";
import { apiCors } from "./web-origin.ts";

/** The HTTP API: one Lambda per route of the manifest, plus the `$default` problem responder. */
export const api = new sst.aws.ApiGatewayV2("Api", {
  // Browsers may call the API only from this stage's dashboard (SST's default would allow every origin).
  cors: apiCors(),
  transform: {
    route: {
      handler: (args) => {
        withDefaults(args, api.url);
      },
    },
  },
});

for (const route of routes) api.route(`${route.method} ${route.path}`, handlerArgs(route));
api.route(fallbackRoute.routeKey, handlerArgs(fallbackRoute));
