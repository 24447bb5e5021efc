/**
 * The NOTIFY channel that announces new deliveries. One channel for every
 * schema; the payload is the schema's name, so storages on other schemas of
 * the same database (other deployments, test runs) ignore the signal.
 */
export const OUTBOX_CHANNEL = 'plant_store_outbox';
