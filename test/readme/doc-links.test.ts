import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// Relative links in the README, docs/, the bench README and the CHANGELOG must lead
// somewhere: a page that moved or a heading that was renamed breaks them
// silently otherwise.
const root = join(import.meta.dirname, '..', '..');

const pages = [
  'README.md',
  'bench/README.md',
  'CHANGELOG.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** A page without its fenced code blocks, where `#` starts no heading and `[x](y)` is no link. */
const withoutFences = (text: string) => text.replace(/^```[\s\S]*?^```/gm, '');
/** A page without code blocks and code spans. */
const prose = (text: string) => withoutFences(text).replace(/`[^`\n]*`/g, '');

/** The anchors of a Markdown page's headings (a repeated heading gets -1, -2, …). */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const match of withoutFences(readFileSync(file, 'utf8')).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = anchorOf(match[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count ? `${base}-${count}` : base);
  }
  return result;
}

/** The relative link targets of `page` (outside code), as written: `path`, `path#anchor` or `#anchor`. */
function relativeLinks(page: string): string[] {
  return [...prose(readFileSync(join(root, page), 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1]!)
    .filter((target) => !/^[a-z][a-z+.-]*:/i.test(target)); // https:, mailto:, …
}

/** What is wrong with one link target of `page`, or undefined. */
function brokenLink(page: string, target: string): string | undefined {
  const [path, anchor] = target.split('#') as [string, string | undefined];
  const file = path ? join(root, dirname(page), decodeURIComponent(path)) : join(root, page);
  const name = relative(root, file);
  if (!existsSync(file)) return `${page}: ${target}: no such file`;
  if (anchor === undefined || statSync(file).isDirectory() || !file.endsWith('.md')) return undefined;
  return anchors(file).has(anchor) ? undefined : `${page}: ${target}: no heading with that anchor in ${name}`;
}

describe('relative links in README.md, docs/, bench/README.md and CHANGELOG.md', () => {
  it('point at files that exist, and at headings that exist', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const page of pages) {
      for (const target of relativeLinks(page)) {
        checked++;
        const problem = brokenLink(page, target);
        if (problem) broken.push(problem);
      }
    }
    expect(checked).toBeGreaterThan(20);
    expect(broken).toEqual([]);
  });

  // The repository keeps the reports its pages cite and no others (bench/README.md, Reports): one no page links to
  // is a replaced run that should have gone to the history.
  it('link every benchmark report the repository keeps', () => {
    const linked = new Set<string>();
    for (const page of pages) {
      for (const target of relativeLinks(page)) {
        const path = target.split('#')[0]!;
        if (path) linked.add(relative(root, join(root, dirname(page), decodeURIComponent(path))));
      }
    }
    // Committed ones only: a run's fresh report waits for its author to link it or throw it away.
    const kept = execFileSync('git', ['ls-files', 'bench/reports'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter((path) => path.endsWith('.md'));
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.filter((report) => !linked.has(report))).toEqual([]);
  });

  it('computes anchors as GitHub does', () => {
    expect(anchorOf('Webhooks: "New Plant"')).toBe('webhooks-new-plant');
    expect(anchorOf('Signals and shutdown')).toBe('signals-and-shutdown');
    expect(anchorOf('`x-request-id` and logs')).toBe('x-request-id-and-logs');
  });
});
