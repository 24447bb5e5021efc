import { describe, expect, it } from 'vitest';
import type { EndpointSecrets, WebhookEndpointRepository } from '../ports/webhook-endpoint-repository.js';
import { endpointTargets } from './delivery-targets.js';
import { newEd25519KeyPair } from './webhook-signature.js';

const NOW = 1_700_000_000_000;
const GOOD = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const clock = { now: () => NOW };
const endpoint = {
  id: 'ep_a',
  tenant: 'a',
  url: 'https://example.com/hook',
  eventTypes: ['plant.created'],
  ordering: 'none',
  status: 'enabled',
  createdAt: 0,
  updatedAt: 0,
} as const;

/** The target of an endpoint holding `secrets` (only `find` is read). */
function targetWith(secrets: EndpointSecrets) {
  const endpoints = { find: async () => ({ endpoint, secrets }) } as unknown as WebhookEndpointRepository;
  return endpointTargets(endpoints, clock).resolve({ id: 'msg_1', endpointId: 'ep_a', eventType: 'plant.created', payload: '{}' } as never);
}

describe('endpointTargets with a malformed stored secret', () => {
  it('signs with every live secret when all are well formed', async () => {
    const target = await targetWith({ current: newEd25519KeyPair().secretKey, previous: GOOD, previousExpiresAt: NOW + 1 });
    expect(target?.keys).toHaveLength(2);
    expect(target?.signingError).toBeUndefined();
  });

  it.each([
    ['current', { current: 'whsk_AAAA' }],
    ['current', { current: 'whsec_', previous: GOOD, previousExpiresAt: NOW + 1 }],
    ['previous', { current: GOOD, previous: `whsk_${'!'.repeat(43)}=`, previousExpiresAt: NOW + 1 }],
  ])('fails closed, naming the %s secret but never its text: it is not dropped from the signatures', async (which, secrets: EndpointSecrets) => {
    const target = await targetWith(secrets);
    expect(target?.signingError).toMatch(new RegExp(`^the endpoint's ${which} secret is malformed`));
    expect(target?.signingError).not.toContain('AAAA');
    expect(target?.signingError).not.toContain('!!!!');
  });

  it('ignores a malformed previous secret once its overlap is over', async () => {
    const target = await targetWith({ current: GOOD, previous: 'whsk_AAAA', previousExpiresAt: NOW });
    expect(target?.signingError).toBeUndefined();
    expect(target?.keys).toHaveLength(1);
  });
});

describe('endpointTargets with a kept copy of the endpoint', () => {
  const delivery = { id: 'msg_1', endpointId: 'ep_a', eventType: 'plant.created', payload: '{}' } as never;
  const secrets = { current: GOOD };
  const finding = (status: 'enabled' | 'disabled') => {
    const reads: string[] = [];
    const find = async (id: string) => (reads.push(id), { endpoint: { ...endpoint, status }, secrets });
    return { repository: { find } as unknown as WebhookEndpointRepository, reads };
  };

  it('reads a disabled one again from storage before its delivery is parked: an enable made elsewhere is not missed', async () => {
    const kept = finding('disabled');
    const stored = finding('enabled');
    const target = await endpointTargets(kept.repository, clock, false, stored.repository).resolve(delivery);
    expect(target?.disabled).toBeUndefined();
    expect(stored.reads).toEqual(['ep_a']);
  });

  it('parks when storage says disabled too, and reads storage only for disabled ones', async () => {
    expect((await endpointTargets(finding('disabled').repository, clock, false, finding('disabled').repository).resolve(delivery))?.disabled).toBe(true);
    const stored = finding('enabled');
    await endpointTargets(finding('enabled').repository, clock, false, stored.repository).resolve(delivery);
    expect(stored.reads).toEqual([]);
  });
});
