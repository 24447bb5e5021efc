import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { objectMessage, validate } from '../domain/validate.js';
import { ValidationError } from '../errors.js';
import { destinationKind, parseBrokerDestination } from './destination-url.js';

/** Smallest accepted signing key, in bytes (Standard Webhooks recommends 24–64). */
export const MIN_SECRET_BYTES = 24;

/** Decodes the key of a `whsec_<base64>` secret, or undefined when malformed. */
export function secretKey(secret: string): Buffer | undefined {
  const match = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret);
  if (!match?.[1]) return undefined;
  const key = Buffer.from(match[1], 'base64');
  // Reject texts that are not canonical base64 (Buffer.from skips junk silently).
  if (key.toString('base64').replace(/=+$/, '') !== match[1].replace(/=+$/, '')) return undefined;
  return key;
}

/** A `whsec_<base64>` secret of at least {@link MIN_SECRET_BYTES} bytes, the message naming `field`. */
export function webhookSecretSchema(field = 'secret') {
  const message = `${field} must be "whsec_" followed by base64 of at least ${MIN_SECRET_BYTES} random bytes`;
  return v.pipe(
    v.string(message),
    v.check((secret) => (secretKey(secret)?.length ?? 0) >= MIN_SECRET_BYTES, message),
  );
}

/** What an operator subscription can receive: every new plant, and the operational events of every tenant it matches. */
export const SUBSCRIPTION_EVENT_TYPES = Object.freeze(['plant.created', 'webhook.endpoint.disabled', 'webhook.delivery.failed'] as const);

/** `eventTypes`: a non-empty list of distinct event types among `types`. */
export function eventTypesSchema<const T extends string>(types: readonly T[]) {
  const message = `eventTypes must be a non-empty array of ${types.join(', ')}`;
  return v.pipe(
    v.array(v.picklist(types, message), message),
    v.minLength(1, message),
    v.check((list) => new Set(list).size === list.length, 'eventTypes must not list a type twice'),
  );
}

const SUBSCRIPTION_URL_MESSAGE = 'url must be an absolute http, https, amqp, amqps, nats, redis, rediss, mqtt or mqtts URL';

/** What is wrong with an operator's subscription URL: any destination kind (the operator trusts it), broker URLs checked for their shape. */
function subscriptionUrlProblem(url: string): string | undefined {
  if (!URL.canParse(url)) return SUBSCRIPTION_URL_MESSAGE;
  const parsed = new URL(url);
  const kind = destinationKind(parsed);
  if (kind === undefined) return SUBSCRIPTION_URL_MESSAGE;
  if (kind === 'http') return parsed.hostname === '' ? SUBSCRIPTION_URL_MESSAGE : undefined;
  const broker = parseBrokerDestination(parsed);
  return typeof broker === 'string' ? broker : undefined;
}

const ID_MESSAGE = 'id must be 1 to 64 letters, digits, "_", "-", "." or ":", not starting with "ep_" (tenant endpoint ids)';

/** The id of a subscription without one: `sub_` and a SHA-256 of its url, stable so queued deliveries find it again after a restart. */
export function subscriptionId(url: string): string {
  return `sub_${createHash('sha256').update(url, 'utf8').digest('hex').slice(0, 24)}`;
}

/** A subscriber to "New Plant": where to POST, how to sign, which tenant (absent: all), what it receives (default `plant.created`), and its id ({@link subscriptionId} unless given). */
export const WebhookSubscriptionSchema = v.pipe(
  v.strictObject(
    {
      // `ep_` ids are tenant endpoints': deliveries are routed, and shown to tenants, by that prefix.
      id: v.exactOptional(v.pipe(v.string(ID_MESSAGE), v.regex(/^(?!ep_)[A-Za-z0-9_.:-]{1,64}$/, ID_MESSAGE))),
      url: v.pipe(
        v.string(SUBSCRIPTION_URL_MESSAGE),
        v.rawCheck<string>(({ dataset, addIssue }) => {
          if (!dataset.typed) return;
          const problem = subscriptionUrlProblem(dataset.value);
          if (problem !== undefined) addIssue({ message: problem });
        }),
      ),
      secret: webhookSecretSchema(),
      tenant: v.exactOptional(v.pipe(v.string('tenant must be a non-empty string'), v.minLength(1, 'tenant must be a non-empty string'))),
      eventTypes: v.exactOptional(eventTypesSchema(SUBSCRIPTION_EVENT_TYPES)),
    },
    objectMessage('a subscription must be an object {url, secret, tenant?, id?, eventTypes?}'),
  ),
  v.transform(({ id, eventTypes, ...rest }) => ({
    ...rest,
    id: id ?? subscriptionId(rest.url),
    eventTypes: eventTypes ?? ['plant.created' as const],
  })),
);

export type WebhookSubscription = v.InferOutput<typeof WebhookSubscriptionSchema>;

export function subscriptionMatches(subscription: WebhookSubscription, tenant: string): boolean {
  return subscription.tenant === undefined || subscription.tenant === tenant;
}

/** Validates each subscription (naming its index) and refuses two with one id: deliveries find their subscription by id. */
export function validateSubscriptions(input: readonly unknown[]): readonly WebhookSubscription[] {
  const seen = new Map<string, number>();
  const subscriptions = input.map((entry, index) => {
    const subscription = validate(WebhookSubscriptionSchema, entry, `webhooks[${index}]`);
    const first = seen.get(subscription.id);
    if (first !== undefined) {
      throw ValidationError.of(
        `webhooks[${index}].id`,
        `subscription id ${subscription.id} is already used by webhooks[${first}] (without an id, the same url means the same id)`,
      );
    }
    seen.set(subscription.id, index);
    return subscription;
  });
  return Object.freeze(subscriptions);
}
