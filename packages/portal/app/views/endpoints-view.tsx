import type { WebhookEndpoint, WebhookEndpointStats } from '@plant-store/client';
import { useEffect, useState } from 'preact/hooks';
import { allEndpoints } from '../api/portal-api.js';
import { focusViewHeading, usePortal, verificationKeyLabel, ViewSection } from '../ui/parts.js';
import { EndpointCard } from './endpoint-card.js';
import { EndpointForm } from './endpoint-form.js';

/** The tenant's endpoints with their health; with write access, adding one. */
export function EndpointsView() {
  const { api, canWrite, announce, fail } = usePortal();
  const [endpoints, setEndpoints] = useState<WebhookEndpoint[] | undefined>(undefined);
  const [stats, setStats] = useState<ReadonlyMap<string, WebhookEndpointStats>>(new Map());
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<{ readonly url: string; readonly secret: string } | undefined>(undefined);

  async function loadStats(ids: readonly string[]) {
    const results = await Promise.allSettled(ids.map((id) => api.endpoints.stats(id)));
    setStats((previous) => {
      const next = new Map(previous);
      for (const result of results) if (result.status === 'fulfilled') next.set(result.value.endpointId, result.value);
      return next;
    });
    const failed = results.find((result) => result.status === 'rejected');
    if (failed !== undefined) fail(failed.reason);
  }

  async function load() {
    const listed = await allEndpoints(api).catch(fail);
    if (listed === undefined) return;
    setEndpoints(listed);
    await loadStats(listed.map((endpoint) => endpoint.id));
  }

  useEffect(() => {
    void load();
  }, []);

  return (
    <ViewSection
      title="Endpoints"
      actions={
        <>
          <button type="button" onClick={() => void load().then(() => announce('Endpoints refreshed.'))}>
            Refresh
          </button>
          {canWrite && !creating ? (
            <button type="button" class="primary" onClick={() => setCreating(true)}>
              Add endpoint
            </button>
          ) : null}
        </>
      }
    >
      {created === undefined ? null : (
        <div class="card created" role="group" aria-labelledby="created-heading">
          <h3 id="created-heading">Endpoint created</h3>
          <p>
            Give this {verificationKeyLabel(created.secret).toLowerCase()} to the receiver at {created.url}; it verifies every delivery with it. You can reveal
            it again later.
          </p>
          <p class="secret">
            {verificationKeyLabel(created.secret)}: <code data-testid="created-secret">{created.secret}</code>
          </p>
          <button type="button" onClick={() => setCreated(undefined)}>
            Done
          </button>
        </div>
      )}
      {creating ? (
        <div class="card">
          <h3>New endpoint</h3>
          <EndpointForm
            onCancel={() => setCreating(false)}
            onSave={async (endpoint) => {
              const saved = await api.endpoints.create(endpoint);
              setCreating(false);
              setCreated({ url: saved.url, secret: saved.secret });
              setEndpoints((previous) => [...(previous ?? []), saved]);
              announce(`Created ${saved.url}.`, 'success');
              void loadStats([saved.id]);
            }}
          />
        </div>
      ) : null}
      {endpoints === undefined ? (
        <p aria-busy="true">Loading endpoints…</p>
      ) : endpoints.length === 0 ? (
        <p>No endpoints yet.{canWrite ? ' Add one to receive webhooks.' : ''}</p>
      ) : (
        <div class="list">
          {endpoints.map((endpoint) => (
            <EndpointCard
              key={endpoint.id}
              endpoint={endpoint}
              stats={stats.get(endpoint.id)}
              onChanged={(changed) => {
                setEndpoints((previous) => previous?.map((item) => (item.id === changed.id ? changed : item)));
                void loadStats([changed.id]);
              }}
              onDeleted={(id) => {
                setEndpoints((previous) => previous?.filter((item) => item.id !== id));
                focusViewHeading();
              }}
            />
          ))}
        </div>
      )}
    </ViewSection>
  );
}
