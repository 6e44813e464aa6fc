// The docs page (/api/v1/docs) in headless Chromium: "Try it out" on POST /api/v1/verify offers a
// file picker and sends the chosen file as the raw body (the document's binary requestBody).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, seedShop, type Harness } from '../helpers/harness.js';
import { HAS_CHROMIUM, launchChromium, warnIfNoChromium } from '../helpers/browser.js';

warnIfNoChromium('docs page');

describe.skipIf(!HAS_CHROMIUM)('docs page: Try it out uploads a file', () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await createHarness('sqlite', { CHECKER_URL: 'http://127.0.0.1:1' });
    base = await h.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await h.close();
  });

  it('verify has a file input and Execute sends the file bytes', async () => {
    const { key } = await seedShop(h);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`${base}/api/v1/docs/static/index.html`);
      const op = '#operations-verify-verifySlip'; // Swagger UI names the block after the operationId
      await page.waitForSelector(op, { timeout: 60_000 });
      await page.click('.auth-wrapper .authorize');
      await page.fill('.auth-container input', key);
      await page.click('.auth-btn-wrapper .authorize');
      await page.click('.btn-done');
      await page.click(`${op} .opblock-summary`);
      await page.click(`${op} .try-out__btn`);
      const file = page.locator(`${op} input[type=file]`);
      expect(await file.count()).toBe(1);
      await file.setInputFiles({ name: 'slip.png', mimeType: 'application/octet-stream', buffer: Buffer.from('not really a png') });
      const sent = page.waitForRequest((r) => r.url().includes('/api/v1/verify') && r.method() === 'POST');
      await page.click(`${op} .execute`);
      const req = await sent;
      // The raw file as the body (16 bytes), not multipart or an empty body.
      expect((await req.allHeaders())['content-length']).toBe('16');
      expect((await req.allHeaders())['content-type']).toBe('application/octet-stream');
      const res = await req.response();
      expect(res?.status()).toBe(400); // reached the route with the key: the bytes are not an image
      expect((await res!.json()).code).toBe('INVALID_IMAGE');
    } finally {
      await browser.close();
    }
  }, 120_000);
});
