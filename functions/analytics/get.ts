import * as Analytics from "#core/analytics/index";
import { endpoint } from "#core/http/endpoint";
import { getAnalytics } from "#core/http/operations/analytics";

export const handler = endpoint(getAnalytics, ({ actor, query }) => Analytics.report(actor, query));
