/** The NOTIFY channel that announces new deliveries; the payload is the schema's name, so other schemas' storages ignore it. */
export const OUTBOX_CHANNEL = 'plant_store_outbox';
