import type { WebhookReceiver } from '../../test/support/webhook-receiver.js';
import { runLoad } from './load.js';
import { latencySummary } from './stats.js';

export interface PacedCreates {
  readonly url: string;
  readonly token: string;
  readonly ratePerSecond: number;
  readonly connections: number;
  readonly durationS: number;
  /** Plant ids count up from here; every webhook of such an id that arrives afterwards is matched to its POST. */
  readonly firstId: number;
}

/** Creates paced at a steady rate; each plant's POST sent → its webhook received at `receiver`, ms (an upper bound of commit → first attempt). */
export async function pacedWebhookLatency(receiver: WebhookReceiver, paced: PacedCreates) {
  const sentAt = new Map<number, number>();
  const before = receiver.received.length;
  let nextId = paced.firstId;
  const load = await runLoad({
    url: paced.url,
    connections: paced.connections,
    durationS: paced.durationS,
    overallRate: paced.ratePerSecond,
    headers: { authorization: `Bearer ${paced.token}`, 'content-type': 'application/json' },
    next: () => {
      const id = nextId++;
      sentAt.set(id, performance.now());
      return { method: 'POST', path: '/plants', body: `{"id":${id},"name":"Paced plant ${id}"}` };
    },
  });
  const created = load.statuses['200'] ?? 0;
  await receiver.waitFor(before + created, { timeoutMs: 60_000 });
  const delays = receiver.received.slice(before).flatMap((arrival) => {
    const sent = sentAt.get((JSON.parse(arrival.body) as { id: number }).id);
    return sent === undefined ? [] : [arrival.headAt - sent];
  });
  const { p50, p99, max } = latencySummary(delays);
  return { created, deliveries: delays.length, p50Ms: p50, p99Ms: p99, maxMs: max, createP50Ms: load.p50Ms };
}
