import { randomUUID } from 'node:crypto';
import type { BrokerDestination } from '@plant-store/core/adapter';
import { driverExports, errorReason, type BrokerClient, type BrokerConnection, type BrokerMessage } from './broker-connection.js';

type MqttDestination = Extract<BrokerDestination, { kind: 'mqtt' }>;

/** MQTT 5 with `mqtt`: QoS 1 publishes (done at the broker's PUBACK), the headers as user properties. */
export const mqttClient: BrokerClient<MqttDestination> = {
  kind: 'mqtt',
  async connect(connection, { timeoutMs }) {
    const mqtt = driverExports(await import('mqtt'), 'connectAsync');
    const url = new URL(connection);
    const client = await mqtt.connectAsync(
      connection,
      {
        protocolVersion: 5,
        clientId: `plant-store-${randomUUID()}`,
        clean: true,
        connectTimeout: timeoutMs,
        // No reconnect of its own: the pool connects again on the next attempt.
        reconnectPeriod: 0,
        ...(url.username !== '' ? { username: decodeURIComponent(url.username) } : {}),
        ...(url.password !== '' ? { password: decodeURIComponent(url.password) } : {}),
      },
      false,
    );
    client.on('error', () => {}); // followed by 'close'; without a listener it would crash the process
    const connectionOf: BrokerConnection<MqttDestination> = {
      get open() {
        return client.connected && !client.disconnecting;
      },
      async publish(destination, message: BrokerMessage) {
        try {
          await client.publishAsync(destination.topic, message.body, {
            qos: 1,
            properties: { userProperties: { ...message.headers }, contentType: message.headers['content-type'] ?? 'application/json' },
          });
        } catch (error) {
          throw new Error(`the broker did not acknowledge the message: ${errorReason(error)}`);
        }
      },
      async close() {
        await client.endAsync(true).catch(() => {});
      },
    };
    return connectionOf;
  },
};
