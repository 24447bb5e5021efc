import type { BrokerDestination } from '@plant-store/core/adapter';
import type { ConfirmChannel, Message } from 'amqplib';
import { driverExports, errorReason, type BrokerClient, type BrokerConnection, type BrokerMessage } from './broker-connection.js';

type AmqpDestination = Extract<BrokerDestination, { kind: 'amqp' }>;

/** RabbitMQ (AMQP 0-9-1) with `amqplib`: a confirm channel, `mandatory` publishes, persistent messages. */
export const amqpClient: BrokerClient<AmqpDestination> = {
  kind: 'amqp',
  async connect(connection, { timeoutMs }) {
    const amqp = driverExports(await import('amqplib'), 'connect');
    const model = await amqp.connect(connection, { timeout: timeoutMs });
    return new AmqpConnection(model);
  },
};

type ChannelModel = Awaited<ReturnType<typeof import('amqplib').connect>>;

class AmqpConnection implements BrokerConnection<AmqpDestination> {
  #open = true;
  #channel: Promise<ConfirmChannel> | undefined;
  /** Why the channel closed (e.g. a missing exchange), for the publishes that it failed. */
  #channelError: string | undefined;
  /** Messages the broker returned as unroutable, by message id: their confirm follows, and fails the publish. */
  readonly #returned = new Map<string, string>();

  constructor(private readonly model: ChannelModel) {
    model.on('error', () => {}); // followed by 'close', which is what counts
    model.on('close', () => {
      this.#open = false;
    });
  }

  get open(): boolean {
    return this.#open;
  }

  async publish(destination: AmqpDestination, message: BrokerMessage): Promise<void> {
    const channel = await this.#confirmChannel();
    const { exchange, routingKey } = destination;
    await new Promise<void>((resolve, reject) => {
      channel.publish(
        exchange,
        routingKey,
        message.body,
        {
          // mandatory: a message no queue takes comes back (basic.return) instead of vanishing as "delivered".
          mandatory: true,
          persistent: true,
          messageId: message.id,
          contentType: message.headers['content-type'],
          timestamp: Math.floor(Date.now() / 1000),
          headers: { ...message.headers },
        },
        (error: unknown) => {
          const returned = this.#returned.get(message.id);
          this.#returned.delete(message.id);
          if (error) reject(new Error(this.#channelError ?? `the broker did not confirm the message: ${errorReason(error)}`));
          else if (returned !== undefined) reject(new Error(returned));
          else resolve();
        },
      );
    });
  }

  #confirmChannel(): Promise<ConfirmChannel> {
    // One channel per connection, made again after the broker closed it (a publish to a missing exchange does).
    this.#channel ??= this.model.createConfirmChannel().then((channel) => {
      this.#channelError = undefined;
      channel.on('error', (error: unknown) => {
        this.#channelError = errorReason(error);
      });
      channel.on('close', () => {
        this.#channel = undefined;
      });
      channel.on('return', (returned: Message) => {
        const { exchange, routingKey, replyText } = returned.fields as { exchange: string; routingKey: string; replyText?: string };
        const id = String(returned.properties.messageId ?? '');
        this.#returned.set(id, `unroutable: no queue is bound to exchange "${exchange}" with routing key "${routingKey}" (${replyText ?? 'NO_ROUTE'})`);
      });
      return channel;
    });
    const made = this.#channel;
    made.catch(() => {
      if (this.#channel === made) this.#channel = undefined;
    });
    return made;
  }

  async close(): Promise<void> {
    this.#open = false;
    await this.model.close().catch(() => {});
  }
}
