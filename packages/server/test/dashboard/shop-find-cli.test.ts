/** Operators ask owners for their shop id; owners know their e-mail. `slipcheck shop find --email`. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { DB_KINDS, type Harness, pgMissing, skipNote } from '../helpers/harness.js';
import { createDashHarness, signup } from './dash-helpers.js';
import { cliEnv } from '../helpers/bank-harness.js';

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`shop find --email [${kind}]${skipNote(kind)}`, () => {
    let h: Harness;
    beforeAll(async () => {
      ({ h } = await createDashHarness(kind));
    });
    afterAll(async () => h.close());
    const cli = async (args: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const env = cliEnv(h);
      const code = await runCli(args, { stdout: (s) => out.push(s), stderr: (s) => err.push(s) }, env);
      return { code, out: out.join('\n'), err: err.join('\n') };
    };

    it('finds the shop of an owner by e-mail, whatever the case', async () => {
      const o = await signup(h, { shopName: 'ร้านหาเจอ' });
      await signup(h); // another shop must not appear
      const r = await cli(['shop', 'find', '--email', o.email.toUpperCase()]);
      expect(r.code).toBe(0);
      const rows = JSON.parse(r.out);
      expect(rows).toEqual([expect.objectContaining({ shopId: o.shopId, shopName: 'ร้านหาเจอ', email: o.email, role: 'owner' })]);
    });

    it('says so for an unknown address and exits 1 like every other lookup miss (2 is for a wrong command line)', async () => {
      const r = await cli(['shop', 'find', '--email', 'nobody-here@example.com']);
      expect(r.code).toBe(1);
      expect(r.err).toContain('NOT_FOUND');
      expect(r.err).toContain('nobody-here@example.com');
      expect(r.err).not.toContain('shop create'); // no usage text: the command line was right
      expect(r.out).toBe('');
    });
  });
}
