import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The app reads the service's shapes from api/dashboard-types.gen.ts (generated from the dashboard
// routes' schemas) and the SDK, never from packages/server's source: a relative import that leaves
// packages/web is refused here. Tests may still compare with the server's source.
const WEB = path.resolve(__dirname, '..');
const SRC = path.join(WEB, 'src');

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : /\.(ts|tsx)$/.test(p) ? [p] : [];
  });
}

/** Imports of a source text that leave packages/web (relative ones) or name the server package. */
export function importsOutsideWeb(file: string, source: string): string[] {
  const specs = [...source.matchAll(/(?:\bfrom\s+|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]!);
  return specs.filter((s) =>
    s.startsWith('.') ? path.relative(WEB, path.resolve(path.dirname(file), s)).startsWith('..') : s.startsWith('@slipcheck/server'),
  );
}

describe('the web app imports nothing from packages/server', () => {
  it('no file under src reaches outside packages/web (the SDK comes by its package name)', () => {
    const files = filesUnder(SRC);
    expect(files.length).toBeGreaterThan(30);
    const offenders = files.flatMap((f) => importsOutsideWeb(f, fs.readFileSync(f, 'utf8')).map((s) => `${path.relative(WEB, f)}: ${s}`));
    expect(offenders).toEqual([]);
  });

  it('the check sees such an import (not vacuous)', () => {
    const file = path.join(SRC, 'api/types.ts');
    expect(
      importsOutsideWeb(
        file,
        "import type { Shop } from '../../../server/src/modules/shops/shop-types';\nimport type { paths } from './dashboard-types.gen';\nimport { api } from '@slipcheck/sdk';",
      ),
    ).toEqual(['../../../server/src/modules/shops/shop-types']);
    expect(importsOutsideWeb(file, "const m = await import('@slipcheck/server/src/config');")).toEqual(['@slipcheck/server/src/config']);
  });
});
