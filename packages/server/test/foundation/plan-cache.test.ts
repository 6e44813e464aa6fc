// Key authentication reads the key's plan on every API request: plans (configuration, written only by
// sync at start) are cached for a minute, and a sync empties the cache.
import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlanService, loadCatalogue } from '../../src/modules/plans/plan-service.js';
import { createHarness, type Harness } from '../helpers/harness.js';

describe('plan service cache', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness('sqlite');
  });
  afterAll(() => h.close());

  it('reads a plan once, then from memory; sync reads it again with the new values', async () => {
    let statements = 0;
    const plugin: KyselyPlugin = {
      transformQuery: (args) => {
        statements++;
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const plans = createPlanService({ db: h.c.db.withPlugin(plugin), clock: h.c.clock });
    const first = await plans.get('STARTER');
    await plans.get('STARTER');
    expect(statements).toBe(1);
    const catalogue = loadCatalogue().map((p) => (p.code === 'STARTER' ? { ...p, monthlyLimit: first.monthlyLimit + 7 } : p));
    await plans.sync(catalogue);
    statements = 0;
    expect((await plans.get('STARTER')).monthlyLimit).toBe(first.monthlyLimit + 7);
    expect(statements).toBe(1);
    await plans.sync(loadCatalogue()); // leave the shared catalogue as configured
  });
});
