import type { ServerResponse } from 'node:http';
import { PassThrough, Readable } from 'node:stream';

// A Response with one of these statuses must have a null body.
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * The slice of `ServerResponse` the routes write to, turned into a web `Response`: a body given whole to `end` becomes
 * the Response's body as it is; one written in parts (a long listing) streams, with backpressure, through a PassThrough.
 */
export class FetchResponse {
  statusCode = 200;
  headersSent = false;
  writableEnded = false;
  /** Settles once the status and headers are known (or the handler gave up before them). */
  readonly response: Promise<Response>;
  private headers: [string, string][] = [];
  private stream: PassThrough | undefined;
  private destroyedEarly = false;
  private resolve!: (response: Response) => void;
  private reject!: (error: Error) => void;

  constructor(private readonly head: boolean) {
    this.response = new Promise<Response>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  get destroyed(): boolean {
    return this.stream?.destroyed ?? this.destroyedEarly;
  }

  get writableNeedDrain(): boolean {
    return this.stream?.writableNeedDrain ?? false;
  }

  writeHead(status: number, headers: readonly string[]): this {
    this.statusCode = status;
    this.headersSent = true;
    for (let index = 0; index < headers.length; index += 2) this.headers.push([headers[index]!, headers[index + 1]!]);
    return this;
  }

  write(chunk: string | Uint8Array): boolean {
    return this.streaming().write(chunk);
  }

  end(chunk?: string | Uint8Array): this {
    if (this.writableEnded) return this;
    this.writableEnded = true;
    if (this.stream !== undefined) this.stream.end(chunk);
    else this.resolve(new Response(this.hasBody() ? (chunk ?? null) : null, { status: this.statusCode, headers: this.headers }));
    return this;
  }

  /** Before the status line, the host's runtime gets the failure; after it, the body errors, so it cannot look complete. */
  destroy(): this {
    if (this.stream !== undefined) this.stream.destroy(new Error('response aborted'));
    else if (!this.destroyedEarly) {
      this.destroyedEarly = true;
      this.reject(new Error('the plant API could not answer this request'));
    }
    return this;
  }

  on(event: 'drain' | 'close', listener: () => void): this {
    this.streaming().on(event, listener);
    return this;
  }

  off(event: 'drain' | 'close', listener: () => void): this {
    this.stream?.off(event, listener);
    return this;
  }

  asServerResponse(): ServerResponse {
    return this as unknown as ServerResponse;
  }

  private hasBody(): boolean {
    return !this.head && !NULL_BODY_STATUSES.has(this.statusCode);
  }

  private streaming(): PassThrough {
    if (this.stream === undefined) {
      this.stream = new PassThrough();
      const body = this.hasBody() ? (Readable.toWeb(this.stream) as unknown as ReadableStream<Uint8Array>) : null;
      if (body === null) this.stream.resume();
      this.resolve(new Response(body, { status: this.statusCode, headers: this.headers }));
    }
    return this.stream;
  }
}
