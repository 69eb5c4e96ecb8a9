import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The repository must stand on its own: what a reader is pointed at is in it, and what the tests
// and the product read is in it (or in their temp dirs).
const ROOT = resolve(import.meta.dirname, '..', '..');

function walk(dir: string, keep: (path: string) => boolean): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) {
      continue;
    }
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(path, keep));
    else if (keep(path)) out.push(path);
  }
  return out;
}

const docs = [join(ROOT, 'README.md'), ...walk(join(ROOT, 'docs'), (p) => p.endsWith('.md'))];
const code = [...walk(join(ROOT, 'src'), () => true), ...walk(join(ROOT, 'test'), () => true)];

/** Markdown link targets outside code blocks: `[text](target)` and `[text](<target>)`. */
function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
}

describe('the repository stands on its own', () => {
  it('every relative link in README.md and docs/ resolves to a file inside the repository', () => {
    const broken: string[] = [];
    for (const file of docs) {
      for (const target of linkTargets(readFileSync(file, 'utf8'))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
        const path = resolve(dirname(file), decodeURIComponent(target.split('#')[0]!));
        const inside = !relative(ROOT, path).startsWith('..');
        if (!inside || !existsSync(path)) broken.push(`${relative(ROOT, file)} -> ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every name a doc imports from engram is exported by that entry point of the build', async () => {
    const missing: string[] = [];
    for (const file of docs) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*'(engram(?:\/[a-z-]+)?)'/g)) {
        const entry = await import(m[2]!);
        for (const raw of m[1]!.split(',')) {
          const name = raw
            .trim()
            .replace(/^type\s+/, '')
            .split(/\s+as\s+/)[0]!;
          if (!name || raw.trim().startsWith('type ')) continue;
          if (!(name in entry)) missing.push(`${relative(ROOT, file)}: ${name} from ${m[2]}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('no test or source file reads the team folder beside the repository', () => {
    const outside = code.filter((file) => {
      if (!/\.(ts|mjs|js|json)$/.test(file) || statSync(file).size > 2_000_000) return false;
      return /\.\.\/shared\b|\/work\/shared\b|'shared', '(data|reference)'/.test(
        readFileSync(file, 'utf8'),
      );
    });
    expect(outside.map((f) => relative(ROOT, f))).toEqual([]);
  });

  it('no file under src/ or test/ is named for a tracker issue', () => {
    const named = code.filter((file) => /issue[-_ ]?\d/i.test(relative(ROOT, file)));
    expect(named.map((f) => relative(ROOT, f))).toEqual([]);
  });
});
