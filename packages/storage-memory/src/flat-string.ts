/**
 * The same text, made flat before it is kept for long. A string built by
 * concatenation (a template literal) is, in V8, a rope: a tree of its pieces,
 * each a heap object. Kept as built, a plant's JSON costs about 280 bytes
 * where its flat text needs about 80, and a page joining a hundred ropes is
 * walked piece by piece each time it is measured and written (9 against
 * 3.4 µs per page of 100 in a micro-benchmark). Reading one character makes
 * V8 flatten the rope in place, and the next garbage collection drops the
 * pieces: about 45 ns for a plant's JSON, where decoding its UTF-8 bytes
 * again (`Buffer.from(text).toString()`) took about 300 ns.
 *
 * The result is the same text either way: only memory and time depend on
 * the engine doing this.
 */
export function flatString(text: string): string {
  text.charCodeAt(0);
  return text;
}
