/** One signed webhook request, ready to send. */
export interface WebhookRequest {
  readonly url: string;
  /** Complete header set (content type, user agent, Standard Webhooks headers). */
  readonly headers: Readonly<Record<string, string>>;
  /** Exact body; must be sent unchanged (the signature covers it). */
  readonly body: string;
  readonly timeoutMs: number;
  /** Aborted when the dispatcher shuts down: stop the attempt and resolve promptly (core records it as interrupted unless the outcome is `delivered`). */
  readonly signal: AbortSignal;
  /**
   * An untrusted destination (a tenant's endpoint): refuse to connect to a non-public address (loopback, private, link-local, unspecified,
   * multicast), checked on the address actually connected to; a refusal's reason is `destination not allowed`. @default false
   */
  readonly restrictDestination?: boolean;
  /**
   * The message's line: the plant id, for an endpoint with `ordering: 'plant'`, whose messages about one plant are sent one at a
   * time in order; absent otherwise. A transport may carry it (the broker ones put it in the routing key, subject or topic) so
   * that consumers can keep that order.
   */
  readonly orderingKey?: string;
}

/** What one attempt came to, in core's terms (the transport maps its protocol onto these); the retry schedule is core's own. */
export type WebhookSendOutcome =
  /** The receiver took the message. */
  (
    | { readonly kind: 'delivered'; readonly statusCode?: number }
    /** Not taken this time, may work later: retried on core's schedule, and not before `notBefore` (epoch ms) when the receiver asked for a later time (core caps how long it waits). */
    | { readonly kind: 'retry'; readonly reason: string; readonly statusCode?: number; readonly notBefore?: number }
    /** The receiver says the endpoint is gone for good: no more attempts for this delivery. */
    | { readonly kind: 'gone'; readonly reason: string; readonly statusCode?: number }
    /** Can never work however often it is tried (e.g. a URL the transport cannot send to): no more attempts. */
    | { readonly kind: 'failed'; readonly reason: string; readonly statusCode?: number }
  ) & {
    /** The start of the receiver's answer body as text (at most `ATTEMPT_RESPONSE_MAX_BYTES` of UTF-8, cut on a character boundary); absent when it sent none. Kept in the attempt log for the tenant to read. */
    readonly response?: string;
    /** The operator's egress failed (e.g. its proxy was down or refused the tunnel), not the receiver: retried as usual, but not counted toward disabling the endpoint. */
    readonly egressFailed?: true;
  };

/** How much of a receiver's answer an attempt keeps: 1 KiB of UTF-8. */
export const ATTEMPT_RESPONSE_MAX_BYTES = 1024;

/** Sends webhook requests over some wire (the reference one is HTTP, in http-node). */
export interface WebhookTransport {
  /** Sends the request once; resolves (never rejects) with the outcome. `reason` and `statusCode` go to the attempt log as they are: no secrets in them. */
  send(request: WebhookRequest): Promise<WebhookSendOutcome>;
}
