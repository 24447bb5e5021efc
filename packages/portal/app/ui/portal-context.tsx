import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { WebhookEventTypeInfo, WebhookSession } from '@plant-store/client';
import type { PortalApi } from '../api/portal-api.js';

/** What every view of a signed-in page shares. */
export interface PortalContextValue {
  readonly api: PortalApi;
  readonly session: WebhookSession;
  /** The token carries `webhooks:write`: write controls are shown. (The service checks the scope anyway.) */
  readonly canWrite: boolean;
  /** The event catalogue, loaded once at sign-in. */
  readonly eventTypes: readonly WebhookEventTypeInfo[];
  /** Reports a failed call: signs out when the token stopped working, else announces it. */
  readonly fail: (error: unknown) => void;
  /** Opens the delivery log filtered to one endpoint. */
  readonly showDeliveries: (endpointId: string) => void;
}

export const PortalContext = createContext<PortalContextValue | undefined>(undefined);

export function usePortal(): PortalContextValue {
  const value = useContext(PortalContext);
  if (value === undefined) throw new Error('usePortal outside a signed-in page');
  return value;
}
