import type { CompiledQuery, QueryId } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/db.js';
import { fixedClock } from '../../src/lib/clock.js';
import { createMemoryRateLimiter } from '../../src/lib/rate-limiter.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { ORIGIN, signup } from '../dashboard/dash-helpers.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// A reset request for a known address did more work than for an unknown one (about 13 ms against 8:
// a timing oracle for which addresses have accounts). Now both do the same statements; the worker
// does the rest. Counted, not timed: the statements of each request are recorded and compared.
describe('password reset request: the same work for a known and an unknown address', () => {
  let h: Harness;
  const seen: string[] = [];
  let recording = false;
  // Recorded where every statement passes, built by a query builder or prepared once and re-bound
  // (db.ts preparedQuery: those skip Kysely plugins, so a plugin saw no statement at all): the
  // executor's executeQuery, with the SQL text and no values.
  type Executor = { executeQuery: (q: CompiledQuery, id: QueryId) => Promise<unknown> };
  let base: Executor | undefined;
  let original: Executor['executeQuery'] | undefined;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'slipcheck-reset-'));
  const handle = openDatabase({ dataDir });
  beforeAll(() => {
    let p = Object.getPrototypeOf(handle.db.getExecutor()) as Executor | null;
    while (p && !Object.prototype.hasOwnProperty.call(p, 'executeQuery')) p = Object.getPrototypeOf(p) as Executor | null;
    base = p!;
    original = base!.executeQuery;
    base!.executeQuery = function (this: Executor, q: CompiledQuery, id: QueryId) {
      if (recording) seen.push(q.sql);
      return original!.call(this, q, id);
    };
  });

  beforeAll(async () => {
    const clock = fixedClock('2026-11-10T03:00:00.000Z');
    h = await createHarness(
      'sqlite',
      { PUBLIC_URL: ORIGIN, DATA_DIR: dataDir },
      { clock, rateLimiter: createMemoryRateLimiter(() => clock.now().getTime()), dbHandle: handle },
    );
  });
  afterAll(async () => {
    if (base && original) base.executeQuery = original;
    await h?.close();
    await handle.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const statementsOf = async (email: string) => {
    seen.length = 0;
    recording = true;
    const r = await h.app.inject({
      method: 'POST',
      url: '/api/dashboard/auth/password-reset/request',
      remoteAddress: `10.31.0.${seen.length + 1}`,
      payload: { email },
    });
    recording = false;
    expect(r.statusCode).toBe(202);
    return { body: r.json().data, statements: [...seen] };
  };

  it('records the same statements for both, and the link still reaches the known address', async () => {
    const o = await signup(h);
    // Warm both paths once (prepared statements, plan cache), then compare.
    await statementsOf(o.email);
    await statementsOf('nobody-warm@example.com');
    const known = await statementsOf(o.email);
    const unknown = await statementsOf('nobody@example.com');
    expect(known.body).toEqual(unknown.body);
    expect(known.statements.length).toBeGreaterThan(0);
    expect(unknown.statements).toEqual(known.statements);
    // The durable part happens off the request path: the worker mails the known address, nobody else.
    await h.c.worker.runOnce();
    const mails = await h.c.mail.list({ limit: 50 });
    expect(mails.filter((m) => m.template === 'password_reset').map((m) => m.to)).toEqual([o.email, o.email]);
  });
});
