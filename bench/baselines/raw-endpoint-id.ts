import { createHash } from 'node:crypto';

/** The service's subscription id of a URL (core's subscriptionId): what the outbox stores as a delivery's endpoint id. */
export const endpointId = (url: string): string => `sub_${createHash('sha256').update(url, 'utf8').digest('hex').slice(0, 24)}`;
