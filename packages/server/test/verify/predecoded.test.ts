import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeSlipImage } from '../../src/modules/slip-qr/slip-qr-decoder.js';
import { createHarness, seedShop, type Harness } from '../helpers/harness.js';
import { startSandbox } from '../helpers/sandbox.js';

// A channel that already decoded the image (LINE groups, to decide whether to stay silent) hands
// the result to the pipeline, which then does not decode it again.
describe('verifySlip with a decode result from the channel', () => {
  let h: Harness;
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let decodes = 0;
  beforeAll(async () => {
    bank = await startSandbox();
    h = await createHarness(
      'sqlite',
      { CHECKER_URL: bank.url },
      {
        decode: async (img) => {
          decodes++;
          return decodeSlipImage(img);
        },
      },
    );
  });
  afterAll(async () => {
    await h.close();
    await bank.close();
  });

  it('uses the given result and decodes only when none is given', async () => {
    const s = await seedShop(h);
    const t1 = await bank.register();
    const img1 = await bank.slip(t1.transRef);
    const pre = await decodeSlipImage(Buffer.from(img1));
    const r1 = await h.c.verification.verifySlip({ shopId: s.shop.id, source: 'LINE', image: img1, decoded: pre });
    expect(r1.record).toMatchObject({ status: 'SUCCESS', transRef: t1.transRef, source: 'LINE' });
    expect(decodes).toBe(0);
    const t2 = await bank.register();
    const r2 = await h.c.verification.verifySlip({ shopId: s.shop.id, source: 'LINE', image: await bank.slip(t2.transRef) });
    expect(r2.record.status).toBe('SUCCESS');
    expect(decodes).toBe(1);
  });
});
