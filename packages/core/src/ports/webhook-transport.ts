/** One signed webhook POST, ready to send. */
export interface WebhookRequest {
  readonly url: string;
  /** Complete header set (content type, user agent, Standard Webhooks headers). */
  readonly headers: Readonly<Record<string, string>>;
  /** Exact body; must be sent unchanged (the signature covers it). */
  readonly body: string;
  /** Give up after this many milliseconds. */
  readonly timeoutMs: number;
}

/** What happened to one POST. Exactly one of `statusCode` or `error` is set. */
export interface WebhookResponse {
  /** Status of the receiver's answer (any status; 3xx is not followed). */
  readonly statusCode?: number;
  /** Raw `Retry-After` header of the answer, if any. */
  readonly retryAfter?: string;
  /** Why there was no answer: timeout, connection refused, … (no secrets). */
  readonly error?: string;
}

/** Sends webhook requests over some wire (the reference one is HTTP, in http-node). */
export interface WebhookTransport {
  /** Sends the request once; never follows redirects; resolves (never rejects) with the status or an error. */
  send(request: WebhookRequest): Promise<WebhookResponse>;
}
