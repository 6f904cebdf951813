/**
 * The repository speaks for itself: its pages, examples and scripts never send a reader to text
 * that is not in it (contract sections, issue or session numbers, stack or style notes kept
 * elsewhere). A page says what rule or area it means, in its own words, and links to the
 * repository's own pages. Section signs of published standards ("RFC 5321 §4.5.5") are fine.
 * Plain file reads; no app is started.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const OUTSIDE = /\b[Ii]ssues? #?[0-9]+|CONTRACT|§ ?[0-9]+|STACK\.md|STYLE\.md|\.\.\/shared|[Ss]ession [0-9]+/;
/** A section of a published standard is a reference anyone can follow. */
const STANDARD_SECTION = /\bRFC ?[0-9]+,? §[0-9][0-9.]*/g;

function outsideReference(line: string): boolean {
  return OUTSIDE.test(line.replace(STANDARD_SECTION, ''));
}

/** Every file under `dir` (recursively) whose name passes `keep`. */
function filesUnder(dir: string, keep: (name: string) => boolean = () => true): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path, keep));
    else if (keep(name)) out.push(path);
  }
  return out;
}

function scannedFiles(): string[] {
  const markdown = (name: string): boolean => name.endsWith('.md');
  return [
    ...filesUnder('docs', markdown),
    'README.md',
    '.env.example',
    '.ci/run',
    ...filesUnder('scripts'),
    ...filesUnder('bench'),
    ...filesUnder('docker'),
    ...filesUnder('sdk/typescript', markdown),
  ];
}

describe('documentation is self-contained', () => {
  it('the matcher flags references to outside text and lets standards through', () => {
    expect(outsideReference('the bounce rules (CONTRACT §18)')).toBe(true);
    expect(outsideReference('## Issue 14: cost that stays flat')).toBe(true);
    expect(outsideReference('the at-most-once rules of issue 12')).toBe(true);
    expect(outsideReference('the machine services (STACK.md)')).toBe(true);
    expect(outsideReference('a copy of `../shared/corpus/mail/`')).toBe(true);
    expect(outsideReference('| session 2 end (raw SQL) |')).toBe(true);
    expect(outsideReference('bounce protection (§14)')).toBe(true);
    expect(outsideReference('null reverse-path (`Return-Path: <>`, RFC 5321 §4.5.5)')).toBe(false);
    expect(outsideReference('the bounce-reading rules (docs/mail-reading.md)')).toBe(false);
  });

  it('scans a real set of files', () => {
    const files = scannedFiles();
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/README.md', '.env.example', '.ci/run']));
    expect(files.filter((f) => f.startsWith('docs/')).length).toBeGreaterThan(10);
    expect(files.some((f) => f.startsWith('bench/'))).toBe(true);
    expect(files.some((f) => f.startsWith('docker/'))).toBe(true);
  });

  it('no page, example or script points outside the repository', () => {
    const found: string[] = [];
    for (const file of scannedFiles()) {
      const lines = readFileSync(file, 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (outsideReference(line)) found.push(`${file}:${i + 1}: ${line.trim().slice(0, 120)}`);
      });
    }
    expect(found.join('\n')).toBe('');
  });
});
