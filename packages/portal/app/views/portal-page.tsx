import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Fact, focusViewHeading, PortalContext, Time, type PortalContextValue } from '../ui/parts.js';
import { CatalogueView } from './catalogue-view.js';
import { DeliveriesView } from './deliveries-view.js';
import { EndpointsView } from './endpoints-view.js';

const VIEWS = { endpoints: 'Endpoints', deliveries: 'Delivery log', catalogue: 'Event catalogue' } as const;
type View = keyof typeof VIEWS;

/** The signed-in page: who is signed in, the sections, and the open one. */
export function PortalPage({ onSignOut, ...shared }: Omit<PortalContextValue, 'canWrite' | 'showDeliveries'> & { readonly onSignOut: () => void }) {
  const { session } = shared;
  const [view, setView] = useState<View>('endpoints');
  const [deliveryEndpoint, setDeliveryEndpoint] = useState<string | undefined>(undefined);
  // Focus moves to the new section's heading when the reader switches, not on first load.
  const switched = useRef(false);
  const canWrite = session.scopes.includes('webhooks:write');

  const context: PortalContextValue = {
    ...shared,
    canWrite,
    showDeliveries: (endpointId) => {
      setDeliveryEndpoint(endpointId);
      open('deliveries');
    },
  };

  function open(next: View) {
    switched.current = true;
    setView(next);
  }

  // Layout effects: focus moves in the same frame as the change it follows.
  useLayoutEffect(() => {
    if (switched.current) focusViewHeading();
  }, [view, deliveryEndpoint]);

  return (
    <PortalContext.Provider value={context}>
      <header class="top">
        <div class="title">
          <p class="brand">Plant Store</p>
          <h1>Webhooks</h1>
        </div>
        <dl class="session" aria-label="Signed in as">
          <Fact label="Tenant" testid="session-tenant">
            {session.tenant}
          </Fact>
          <Fact label="Access" testid="session-access">
            {canWrite ? 'Read and write' : 'Read-only'}
          </Fact>
          {session.expiresAt === undefined ? null : (
            <Fact label="Link expires">
              <Time at={session.expiresAt} />
            </Fact>
          )}
        </dl>
        <button type="button" class="quiet" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <nav class="sections" aria-label="Sections">
        <ul>
          {(Object.entries(VIEWS) as [View, string][]).map(([id, label]) => (
            <li key={id}>
              <button
                type="button"
                aria-current={view === id ? 'page' : undefined}
                onClick={() => {
                  if (id === 'deliveries') setDeliveryEndpoint(undefined);
                  open(id);
                }}
              >
                {label}
              </button>
            </li>
          ))}
        </ul>
      </nav>
      <main>
        {canWrite ? null : (
          <p class="notice" data-testid="read-only-notice">
            You are signed in read-only: you can see everything here, but not change it.
          </p>
        )}
        {view === 'endpoints' ? (
          <EndpointsView />
        ) : view === 'deliveries' ? (
          <DeliveriesView key={deliveryEndpoint ?? ''} initialEndpoint={deliveryEndpoint} />
        ) : (
          <CatalogueView />
        )}
      </main>
    </PortalContext.Provider>
  );
}
