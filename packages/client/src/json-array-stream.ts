const WHITESPACE = /^[ \t\n\r]*$/;

/** Where the splitter is inside the text; kept across chunks. */
interface SplitState {
  depth: number;
  inString: boolean;
  escaped: boolean;
  /** Offset in `buffer` where the current element starts. */
  start: number;
  /** Elements cut so far (tells `[]` from `[,]`). */
  count: number;
  ended: boolean;
}

/** Cuts the complete elements off the front of `buffer`, scanning from `from`; only strings and nesting are tracked (the caller parses each element). */
function splitElements(buffer: string, from: number, state: SplitState, out: string[]): void {
  for (let position = from; position < buffer.length; position++) {
    const char = buffer[position];
    if (state.inString) {
      if (state.escaped) state.escaped = false;
      else if (char === '\\') state.escaped = true;
      else if (char === '"') state.inString = false;
    } else if (char === '"') {
      state.inString = true;
    } else if (char === '{' || char === '[') {
      if (++state.depth === 1) {
        if (char !== '[' || !WHITESPACE.test(buffer.slice(0, position))) throw new SyntaxError('expected a JSON array');
        state.start = position + 1;
      }
    } else if (state.depth === 1 && (char === ',' || char === ']')) {
      const element = buffer.slice(state.start, position).trim();
      // An empty element is pushed too (`[1,]`), so that parsing it fails; only `[]` has none.
      if (char === ',' || element !== '' || state.count > 0) {
        out.push(element);
        state.count++;
      }
      state.start = position + 1;
      if (char === ']') {
        state.depth = 0;
        state.ended = true;
        if (!WHITESPACE.test(buffer.slice(position + 1))) throw new SyntaxError('unexpected text after the JSON array');
        return;
      }
    } else if (char === '}' || char === ']') {
      if (--state.depth < 1) throw new SyntaxError('unbalanced brackets in the JSON array');
    }
  }
}

/**
 * The element texts of a JSON array arriving as a byte stream, each as soon as it is complete (constant memory).
 * `SyntaxError` when it is not an array or ends before its `]` (how the service cuts a list short when storage fails);
 * stopping early cancels the stream.
 */
export async function* jsonArrayElements(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  // Not fatal: like response.text(), invalid bytes become U+FFFD.
  const decoder = new TextDecoder();
  const state: SplitState = { depth: 0, inString: false, escaped: false, start: 0, count: 0, ended: false };
  let buffer = '';
  let done = false;
  try {
    while (!done) {
      const chunk = await reader.read();
      done = chunk.done;
      const scanned = buffer.length;
      buffer += done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
      if (state.ended) {
        if (!WHITESPACE.test(buffer.slice(scanned))) throw new SyntaxError('unexpected text after the JSON array');
        continue;
      }
      const elements: string[] = [];
      splitElements(buffer, scanned, state, elements);
      yield* elements;
      // Keep only the unfinished element; offsets move with it.
      if (state.start > 0 && !state.ended) {
        buffer = buffer.slice(state.start);
        state.start = 0;
      }
    }
    if (!state.ended) throw new SyntaxError('the JSON array ended before its closing bracket');
  } finally {
    if (!done) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
