import { describe, expect, it } from 'vitest';
import { maskSecrets } from './mask-secrets.js';

describe('maskSecrets', () => {
  it.each([
    ['smtps://user:s3cretPW@smtp.example.com:99999', 'smtps://user:***@smtp.example.com:99999'],
    ['postgres://app:p%40ss:w/rd@db:5432/x', 'postgres://app:***@db:5432/x'],
    ['redis://:onlypw@127.0.0.1:6379', 'redis://:***@127.0.0.1:6379'],
    ['DATABASE_URL="postgres://u:pw@h/db": must be a URL', 'DATABASE_URL="postgres://u:***@h/db": must be a URL'],
    ['https://x.test/hook?token=abc123&mode=1', 'https://x.test/hook?token=***&mode=1'],
    ['https://x.test/?api_key=k1;sig=zz#f', 'https://x.test/?api_key=***;sig=***#f'],
  ])('%s', (input, masked) => {
    expect(maskSecrets(input)).toBe(masked);
  });

  it('leaves URLs without credentials and plain text alone', () => {
    for (const s of ['postgres://postgres@127.0.0.1:5432/test', 'http://127.0.0.1:3900', 'must be between 0 and 65535', 'redis://h:6379/0'])
      expect(maskSecrets(s)).toBe(s);
  });
});
