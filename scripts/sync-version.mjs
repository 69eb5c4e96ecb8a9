// Writes src/util/version.ts from package.json, so the CLI and the MCP server report the version
// the package was built as. Runs before every build; the version test fails if the two disagree.
import { readFileSync, writeFileSync } from 'node:fs';

const root = new URL('..', import.meta.url);
const { version } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const target = new URL('src/util/version.ts', root);
const text = `// Generated from package.json by scripts/sync-version.mjs (run by npm run build): do not edit.\nexport const ENGRAM_VERSION = '${version}';\n`;
let current = '';
try {
  current = readFileSync(target, 'utf8');
} catch {}
if (current !== text) writeFileSync(target, text);
