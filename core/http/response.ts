/**
 * An explicit HTTP answer from an endpoint implementation, for the cases where
 * the operation's declared success status and JSON body are not enough
 * (CSV downloads, extra headers, a status decided at run time).
 */
export class HttpResponse {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}

  static noContent(): HttpResponse {
    return new HttpResponse(204, undefined);
  }

  static text(status: number, body: string, contentType: string, headers: Record<string, string> = {}): HttpResponse {
    return new HttpResponse(status, body, { "content-type": contentType, ...headers });
  }
}
