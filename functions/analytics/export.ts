import * as Analytics from "#core/analytics/index";
import { endpoint } from "#core/http/endpoint";
import { HttpResponse } from "#core/http/response";
import { exportAnalytics } from "#core/http/operations/analytics";

export const handler = endpoint(exportAnalytics, async ({ actor, query }) => {
  const { fileName, csv } = await Analytics.exportCsv(actor, query);
  return HttpResponse.text(200, csv, "text/csv; charset=utf-8", {
    "content-disposition": `attachment; filename="${fileName}"`,
  });
});
