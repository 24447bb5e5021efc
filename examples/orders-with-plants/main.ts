// An app that already has PostgreSQL, a pg.Pool and an orders table: an order and the plant it brings are written in
// one transaction of the app's own, with the plant's webhook queued in it too. Run it with
//   DATABASE_URL=postgres://… WEBHOOK_URL=https://… WEBHOOK_SECRET=whsec_… node --import tsx examples/orders-with-plants/main.ts
// (APP_SCHEMA and STORE_SCHEMA choose the schemas: the app's tables and the store's, 'public' and 'plant_store' by default).
import pg from 'pg';
import { createPlantStore, type Plant, type Principal } from '@plant-store/core';
import { webhookHttpTransport } from '@plant-store/http-node/webhook-transport';
import { postgresStorage } from '@plant-store/storage-postgres';

const { DATABASE_URL, WEBHOOK_URL, WEBHOOK_SECRET, APP_SCHEMA = 'public', STORE_SCHEMA = 'plant_store' } = process.env;
const orders = `${pg.escapeIdentifier(APP_SCHEMA)}.orders`;

// The app's own pool and table.
const pool = new pg.Pool({ connectionString: DATABASE_URL });
await pool.query(`CREATE TABLE IF NOT EXISTS ${orders} (id bigint PRIMARY KEY, customer text NOT NULL, plant_id bigint NOT NULL)`);

// The store on the app's pool, its tables in a schema of their own; it never ends the pool.
const store = createPlantStore({
  storage: await postgresStorage({ pool, schema: STORE_SCHEMA }),
  webhooks: WEBHOOK_URL ? { subscriptions: [{ url: WEBHOOK_URL, secret: WEBHOOK_SECRET! }], transport: webhookHttpTransport() } : {},
});
store.events.on('plant.created', ({ plant }) => console.log(`event: plant ${plant.id} created`));

const shop: Principal = { subject: 'shop', tenant: 'acme', scopes: ['plants:read', 'plants:write'] };

/** Places an order and creates its plant: both, with the plant's webhook, or neither. */
async function placeOrder(order: { id: number; customer: string; plant: { id: number; name: string } }): Promise<Plant> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const tx = store.inTransaction(client);
    const { plant } = await tx.plants.create(shop, order.plant);
    await client.query(`INSERT INTO ${orders} (id, customer, plant_id) VALUES ($1, $2, $3)`, [order.id, order.customer, order.plant.id]);
    await client.query('COMMIT');
    tx.committed(); // now the store emits plant.created and its dispatcher sends the webhook
    return plant;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

const plant = await placeOrder({ id: 1, customer: 'Ada', plant: { id: 1, name: 'Fern' } });
console.log(`order 1 placed with plant ${plant.id} (${plant.name})`);
try {
  // Order 1 exists: the order fails, and plant 2 goes with it (no plant, no webhook, no event).
  await placeOrder({ id: 1, customer: 'Grace', plant: { id: 2, name: 'Palm' } });
} catch (error) {
  console.log(`order refused: ${(error as Error).message}`);
}
const kept = await store.plants.get(shop, 2).then(
  () => 'kept',
  () => 'absent',
);
console.log(`plant 2 is ${kept}`);

// Waits for the dispatcher to deliver before closing (an app that keeps running does not need to).
if (WEBHOOK_URL) {
  while ((await store.allTenants.webhooks.list({ status: 'pending' })).length > 0) await new Promise((resolve) => setTimeout(resolve, 20));
}
await store.close();
await pool.end(); // the app's pool: the app ends it
