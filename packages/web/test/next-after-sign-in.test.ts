import { describe, expect, it } from 'vitest';
import { loginPathFor, nextAfterSignIn } from '../src/lib/router';

const after = (loginPath: string) => nextAfterSignIn(new URL(loginPath, 'https://shop.example').searchParams);

describe('the way back after signing in', () => {
  it('returns to the page asked for, with its query (a daily summary link, an alert mail link)', () => {
    for (const page of ['/transactions?from=2026-11-27&to=2026-11-27', '/transactions/txn_01abc', '/settings']) {
      const [path, qs = ''] = page.split('?');
      expect(after(loginPathFor(path!, new URLSearchParams(qs))), page).toBe(page);
    }
    expect(loginPathFor('/', new URLSearchParams())).toBe('/login');
  });

  it('goes only to a page of this site, else to the overview', () => {
    for (const next of [
      '//evil.example/x',
      '/\\evil.example',
      'https://evil.example/',
      'javascript:alert(1)',
      '/\t/evil.example',
      '',
      '/login',
      '/signup?x=1',
    ])
      expect(after(`/login?next=${encodeURIComponent(next)}`), JSON.stringify(next)).toBe('/');
    expect(after('/login')).toBe('/');
  });
});
