/** The start of a response body: `maxBytes`, plus one byte to tell whether the cut splits a UTF-8 character. */
export class ResponseSnippet {
  readonly #chunks: Buffer[] = [];
  #kept = 0;

  constructor(private readonly maxBytes: number) {}

  get full(): boolean {
    return this.#kept > this.maxBytes;
  }

  add(chunk: Buffer): void {
    const room = this.maxBytes + 1 - this.#kept;
    if (room <= 0) return;
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.#chunks.push(part);
    this.#kept += part.length;
  }

  /** `undefined` when the body was empty. */
  text(): string | undefined {
    if (this.#kept === 0) return undefined;
    const bytes = Buffer.concat(this.#chunks, this.#kept);
    let end = Math.min(bytes.length, this.maxBytes);
    // Over the limit: step back to the first byte of the character that straddles it (continuation bytes are 10xxxxxx).
    if (bytes.length > this.maxBytes) while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
    return bytes.subarray(0, end).toString('utf8');
  }
}
