// One link-value of an RFC 8288 `Link` header: `<target>` and its parameters.
// Targets cannot contain `>`, and the service percent-encodes commas in them.
const LINK_VALUE = /<([^>]*)>([^<]*)/g;
const REL = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i;

/** The target of the `rel="next"` link in a `Link` header (as written, unresolved), or undefined when there is none. */
export function nextLinkTarget(header: string | null): string | undefined {
  if (header === null) return undefined;
  for (const [, target, parameters] of header.matchAll(LINK_VALUE)) {
    const rel = REL.exec(parameters ?? '');
    const relations = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (relations.includes('next')) return target;
  }
  return undefined;
}
