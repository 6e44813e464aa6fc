import pg from 'pg';

/**
 * Test schemas (`t_<hex>`, one per harness) are dropped here, before any test runs, instead of when
 * each harness closes: Kysely's migrator introspects every schema of the database, and a schema
 * dropped by another test file in the middle of that query fails it ("schema does not exist").
 * Only schemas older than two hours go (the name carries its creation time), so a second run on the
 * same database at the same time keeps its own.
 */
const STALE_SECONDS = 2 * 60 * 60;

export default async function setup() {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ nspname: string }>("select nspname from pg_namespace where nspname ~ '^t_[0-9a-f]{12}$'");
    const now = Math.floor(Date.now() / 1000);
    for (const r of rows) {
      const created = parseInt(r.nspname.slice(2, 10), 16);
      if (now - created < STALE_SECONDS) continue;
      await client.query(`drop schema if exists ${r.nspname} cascade`);
    }
  } finally {
    await client.end();
  }
}
