import { randomBytes } from 'node:crypto';
import type { WebhookTransport } from '@plant-store/core/adapter';

// The webhook fixture of the operators' CLI suites: two subscriptions whose
// receivers are answered without the network, /ok taking every delivery and
// /gone saying 410, so one create leaves one delivered and one failed delivery.

const secret = () => `whsec_${randomBytes(32).toString('base64')}`;
export const subscriptions = [
  { url: 'http://127.0.0.1:9/ok', secret: secret() },
  { url: 'http://127.0.0.1:9/gone', secret: secret() },
];

/** Answers like the receivers of the fixture: /ok takes it, /gone says 410. */
export const fixtureTransport: WebhookTransport = {
  send: async (request) =>
    request.url.endsWith('/gone') ? { kind: 'gone', statusCode: 410, reason: 'receiver answered 410 Gone' } : { kind: 'delivered', statusCode: 204 },
};
