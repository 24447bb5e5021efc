import type { WebhookSubscription } from '@plant-store/core';
import { WebhookSubscriptionSchema, validate } from '@plant-store/core/adapter';
import { parseJsonArraySetting } from './json-setting.js';

export function parseWebhooks(text: string, name: string, path?: string): WebhookSubscription[] {
  return parseJsonArraySetting(text, (item) => validate(WebhookSubscriptionSchema, item), name, path);
}
