import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertPublicTarget, isBlockedAddress, parseWebhookUrl } from '../../src/modules/webhooks/webhook-url-guard.js';
import { createWebhookSender } from '../../src/modules/webhooks/webhook-sender.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';

describe('webhook URL safety', () => {
  it('refuses private, loopback, link-local, CGNAT and metadata addresses', () => {
    for (const ip of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00:ec2::254',
      'fc00::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '64:ff9b::a9fe:a9fe',
      '224.0.0.1',
      'not-an-ip',
    ]) {
      expect(isBlockedAddress(ip), ip).toBe(true);
    }
    for (const ip of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(isBlockedAddress(ip), ip).toBe(false);
  });

  it('refuses IPv4 hidden in other IPv6 forms and scoped (zone id) addresses', () => {
    // ::127.0.0.1 as URL and getaddrinfo print it, SIIT-translated loopback, local-use NAT64 to metadata, zone ids.
    for (const ip of [
      '::7f00:1',
      '::a9fe:a9fe',
      '::ffff:0:7f00:1',
      '::ffff:0:a00:1',
      '64:ff9b:1::a9fe:a9fe',
      'fe80::1%eth0',
      '2606:4700::1%1',
    ]) {
      expect(isBlockedAddress(ip), ip).toBe(true);
    }
  });

  it('normalises decimal, octal, hex and short IPv4 literals before checking them', async () => {
    const o = {
      allowPrivate: false,
      lookup: (async () => {
        throw new Error('literal hosts must not be resolved');
      }) as never,
    };
    for (const raw of [
      'https://2130706433/h',
      'https://0x7f.1/h',
      'https://0177.0.0.1/h',
      'https://127.1/h',
      'https://0/h',
      'https://0xa9fea9fe/latest',
      'https://[::ffff:127.0.0.1]/h',
      'https://[::127.0.0.1]/h',
      'https://[0:0:0:0:0:ffff:a9fe:a9fe]/h',
    ]) {
      const u = parseWebhookUrl(raw, o);
      await expect(assertPublicTarget(u, o), raw).rejects.toThrow(/public/);
    }
    expect(() => parseWebhookUrl('https://[fe80::1%25eth0]/h', o)).toThrow(/valid URL/);
  });

  it('checks syntax: https only, no credentials, no fragment, bounded length', () => {
    const strict = { allowPrivate: false };
    expect(parseWebhookUrl('https://example.com/hook?x=1', strict).toString()).toBe('https://example.com/hook?x=1');
    expect(() => parseWebhookUrl('http://example.com/hook', strict)).toThrow(/https/);
    expect(parseWebhookUrl('http://127.0.0.1:9/x', { allowPrivate: true }).protocol).toBe('http:');
    expect(() => parseWebhookUrl('https://user:pw@example.com/', strict)).toThrow(/credentials/);
    expect(() => parseWebhookUrl('https://example.com/#frag', strict)).toThrow(/fragment/);
    expect(() => parseWebhookUrl(`https://example.com/${'a'.repeat(2100)}`, strict)).toThrow(/at most/);
    expect(() => parseWebhookUrl('ftp://example.com/', strict)).toThrow(/https/);
    expect(() => parseWebhookUrl('not a url', strict)).toThrow(/valid URL/);
  });

  it('resolves at creation and refuses names pointing inside', async () => {
    const lookup = (async (host: string) => {
      if (host === 'inside.example') return [{ address: '10.0.0.5', family: 4 }];
      if (host === 'mixed.example')
        return [
          { address: '93.184.216.34', family: 4 },
          { address: '127.0.0.1', family: 4 },
        ];
      if (host === 'public.example') return [{ address: '93.184.216.34', family: 4 }];
      throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
    }) as never;
    const o = { allowPrivate: false, lookup };
    await expect(assertPublicTarget(new URL('https://public.example/h'), o)).resolves.toBeUndefined();
    await expect(assertPublicTarget(new URL('https://inside.example/h'), o)).rejects.toMatchObject({
      statusCode: 400,
      code: 'INVALID_WEBHOOK_URL',
    });
    await expect(assertPublicTarget(new URL('https://mixed.example/h'), o)).rejects.toThrow(/public/);
    await expect(assertPublicTarget(new URL('https://nowhere.example/h'), o)).rejects.toThrow(/does not resolve/);
    await expect(assertPublicTarget(new URL('https://[::1]/h'), o)).rejects.toThrow(/public/);
    await expect(assertPublicTarget(new URL('https://169.254.169.254/latest'), o)).rejects.toThrow(/public/);
  });

  describe('at send time (no DNS rebinding: the checked address is the connected one)', () => {
    let rx: Receiver;
    beforeAll(async () => {
      rx = await startReceiver();
    });
    afterAll(async () => {
      await rx.close();
    });

    it('refuses a literal private address and a name resolving to loopback; nothing reaches the receiver', async () => {
      const sender = createWebhookSender({ timeoutMs: 2000, allowPrivate: false });
      try {
        const literal = await sender.send({ url: rx.url('/x'), body: '{}', headers: {} });
        expect(literal).toMatchObject({ ok: false, statusCode: null });
        expect(literal.error).toMatch(/not a public address/);
        const named = await sender.send({ url: `https://localhost:${rx.port}/x`, body: '{}', headers: {} });
        expect(named).toMatchObject({ ok: false, statusCode: null });
        expect(named.error).toMatch(/EADDRBLOCKED|non-public/);
        // An http:// URL saved while WEBHOOK_ALLOW_PRIVATE was on is refused once the flag is off.
        const plain = await sender.send({ url: 'http://example.com/x', body: '{}', headers: {} });
        expect(plain).toMatchObject({ ok: false, statusCode: null });
        expect(plain.error).toMatch(/refused: url must use https/);
        expect(rx.received).toHaveLength(0);
      } finally {
        await sender.close();
      }
      const dev = createWebhookSender({ timeoutMs: 2000, allowPrivate: true });
      try {
        expect(await dev.send({ url: `http://localhost:${rx.port}/x`, body: '{}', headers: {} })).toMatchObject({
          ok: true,
          statusCode: 200,
        });
      } finally {
        await dev.close();
      }
    });
  });
});
