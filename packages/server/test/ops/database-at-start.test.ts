import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { pgMissing, skipNote } from '../helpers/harness.js';

/**
 * A database that cannot be reached at start used to end the service with pg-pool's raw stack trace.
 * Now: one line naming DATABASE_URL (password masked), exit 78 when the URL itself is wrong (no such
 * database, refused login: no restart will help) and 1 when the server cannot be reached (retry).
 */
const ROOT = path.resolve(import.meta.dirname, '../../../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slipcheck-db-start-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function startService(databaseUrl: string) {
  return new Promise<{ code: number | null; stderr: string; stdout: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'packages/server/src/main.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: 'test',
        DATABASE_URL: databaseUrl,
        DATA_DIR: dir,
        PORT: '0',
        METRICS_PORT: '0',
        DB_CONNECT_TIMEOUT_MS: '2000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => (stdout += d));
    child.on('exit', (code) => resolve({ code, stderr, stdout }));
  });
}

function withPassword(url: string, password: string) {
  const u = new URL(url);
  u.password = password;
  return u;
}

describe('the database cannot be reached at start', () => {
  it('the service prints one line naming DATABASE_URL, masked, and exits 1 (nothing listens there)', async () => {
    const r = await startService('postgres://app:s3cretPW@127.0.0.1:1/slipcheck');
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(
        /^DATABASE_URL="postgres:\/\/app:\*\*\*@127\.0\.0\.1:1\/slipcheck": the database cannot be reached: .*ECONNREFUSED/,
      ),
    ]);
    expect(r.stderr + r.stdout).not.toContain('s3cretPW');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);

  it.skipIf(pgMissing('postgres'))(
    `a database that does not exist is a configuration error: exit 78${skipNote('postgres')}`,
    async () => {
      const url = withPassword(process.env.TEST_DATABASE_URL!, 's3cretPW');
      url.pathname = '/does_not_exist';
      const r = await startService(url.href);
      expect(r.code).toBe(78);
      const lines = r.stderr.trim().split('\n');
      expect(lines).toEqual([
        expect.stringMatching(/^DATABASE_URL=".*:\*\*\*@.*\/does_not_exist": database "does_not_exist" does not exist \(3D000\)$/),
      ]);
      expect(r.stderr).not.toContain('s3cretPW');

      // The CLI says the same and exits the same way.
      const err: string[] = [];
      const code = await runCli(
        ['plan', 'list'],
        { stdout: () => undefined, stderr: (s) => err.push(s) },
        {
          NODE_ENV: 'test',
          DATA_DIR: dir,
          DATABASE_URL: url.href,
        },
      );
      expect(code).toBe(78);
      expect(err.join('\n')).toMatch(/^DATABASE_URL=".*:\*\*\*@.*\/does_not_exist": database "does_not_exist" does not exist/);
    },
    60_000,
  );
});
