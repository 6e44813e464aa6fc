import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { decodeSlipImage } from '../../src/modules/slip-qr/slip-qr-decoder.js';
import { createHarness, seedShop, type Harness } from '../helpers/harness.js';
import { startSandbox } from '../helpers/sandbox.js';

// When the decoder is saturated the call is refused with 503 and changes nothing, so a retry works.
describe('decoder busy', () => {
  let h: Harness;
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let busy = true;
  beforeAll(async () => {
    bank = await startSandbox();
    h = await createHarness(
      'sqlite',
      { CHECKER_URL: bank.url },
      {
        decode: async (image) => {
          if (busy) throw new AppError('DECODER_BUSY', 503, 'decoder queue full (internal detail)');
          return decodeSlipImage(image);
        },
      },
    );
  });
  afterAll(async () => {
    await h.close();
    await bank.close();
  });

  it('answers 503 with Retry-After in the envelope, charges nothing, and the retry is checked', async () => {
    const s = await seedShop(h);
    const t = await bank.register();
    const img = await bank.slip(t.transRef);
    const post = () =>
      h.app.inject({
        method: 'POST',
        url: '/api/v1/verify',
        headers: { ...s.auth, 'content-type': 'application/octet-stream' },
        payload: img,
      });
    const r = await post();
    expect(r.statusCode).toBe(503);
    expect(r.headers['retry-after']).toBe('1');
    expect(r.json()).toMatchObject({ success: false, statusCode: 503, code: 'DECODER_BUSY', error: 'Service Unavailable' });
    expect(r.body).not.toContain('internal detail');
    expect(r.headers['x-service-quota-used']).toBe('0');
    busy = false;
    const again = await post();
    expect(again.json().data).toMatchObject({ status: 'SUCCESS', cached: false, quota: { used: 1 } });
  });
});
