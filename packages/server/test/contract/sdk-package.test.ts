// The SDK as an integrator gets it: `npm pack`, installed from the tarball into a fresh project
// outside the workspace, then imported (ESM), required (CommonJS), type-checked by a strict
// consumer (node16 and bundler resolution), and the README's marked examples run verbatim against
// a running service with the sandbox bank.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxBank } from '@slipcheck/sandbox-bank';
import { createHarness, seedShop, type Harness } from '../helpers/harness.js';
import { createOutboxWorker, type OutboxWorker } from '../../src/outbox/outbox-worker.js';
import { REUSE_BUILD } from '../helpers/reuse-build.js';

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, '../../../..');
const SDK = path.join(REPO, 'packages/sdk');
const TSC = path.join(REPO, 'node_modules/typescript/bin/tsc');
const TYPE_ROOTS = path.join(REPO, 'node_modules/@types');

/** The fenced block right after `<!-- ci:NAME ... -->` in the SDK README, byte for byte. */
export function readmeBlock(readme: string, name: string): string {
  const m = new RegExp(`<!-- ci:${name}\\b[^>]*-->\\s*\\n\`\`\`\\w*\\n([\\s\\S]*?)\\n\`\`\`\\n`).exec(readme);
  if (!m) throw new Error(`README block ci:${name} not found`);
  return m[1]! + '\n';
}

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

const write = (dir: string, file: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), text);
};

describe('the packed SDK, installed outside the workspace', () => {
  let tmp: string;
  let consumer: string;
  let tarball: string;
  const readme = fs.readFileSync(path.join(SDK, 'README.md'), 'utf8');

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'slipcheck-sdk-pack-'));
    // Pack a copy, so the build `npm pack` runs (prepack) never replaces the workspace's dist/
    // under another test; node_modules is linked only so the build finds typescript.
    const copy = path.join(tmp, 'sdk');
    fs.mkdirSync(copy);
    for (const f of ['package.json', 'README.md', 'tsconfig.build.json', 'tsconfig.cjs.json', 'src', 'scripts']) {
      fs.cpSync(path.join(SDK, f), path.join(copy, f), { recursive: true });
    }
    fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(copy, 'node_modules'));
    // Under `npm test` (scripts/test.js) the SDK was built from these sources moments ago by the same
    // script its prepack runs: pack that build instead of compiling it twice more (~6 s of CPU). A
    // targeted run packs as a maintainer does, prepack and all.
    const reuse = REUSE_BUILD;
    if (reuse) fs.cpSync(path.join(SDK, 'dist'), path.join(copy, 'dist'), { recursive: true });
    const packed = await run('npm', ['pack', '--json', '--pack-destination', tmp, ...(reuse ? ['--ignore-scripts'] : [])], { cwd: copy });
    const info = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as [{ filename: string; files: { path: string }[] }];
    tarball = path.join(tmp, info[0].filename);
    const files = info[0].files.map((f) => f.path).sort();
    // Only what a consumer needs: the README, the manifest and the two builds.
    expect(files.filter((f) => !/^dist\/(esm|cjs)\/[\w.-]+\.(js|d\.ts)$/.test(f))).toEqual([
      'README.md',
      'dist/cjs/package.json',
      'package.json',
    ]);
    expect(files).toContain('dist/esm/index.js');
    expect(files).toContain('dist/cjs/index.d.ts');

    consumer = path.join(tmp, 'consumer');
    write(consumer, 'package.json', JSON.stringify({ name: 'integrator-app', version: '1.0.0', private: true, type: 'module' }));
    // Offline: the SDK has no runtime dependencies, so nothing but the tarball is fetched.
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], { cwd: consumer });
    expect(fs.realpathSync(path.join(consumer, 'node_modules/@slipcheck/sdk'))).toBe(path.join(consumer, 'node_modules/@slipcheck/sdk'));
    expect(JSON.parse(fs.readFileSync(path.join(consumer, 'package.json'), 'utf8')).dependencies['@slipcheck/sdk']).toMatch(/^file:/);
  }, 600_000);

  afterAll(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('imports as ESM and requires as CommonJS (both entry points), with no runtime dependencies', async () => {
    const esm = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
      import * as sdk from '@slipcheck/sdk';
      import * as sig from '@slipcheck/sdk/webhook-signature';
      console.log(JSON.stringify([typeof sdk.createSlipcheckClient, typeof sdk.verifyWebhookSignature, typeof sig.signWebhookPayload, sdk.SDK_VERSION]));`,
      ],
      { cwd: consumer },
    );
    expect(JSON.parse(esm.stdout)).toEqual(['function', 'function', 'function', '0.1.0']);
    const cjs = await run(
      process.execPath,
      [
        '-e',
        `
      const sdk = require('@slipcheck/sdk');
      const sig = require('@slipcheck/sdk/webhook-signature');
      const header = sdk.signWebhookPayload('{}', 'whsec_x');
      console.log(JSON.stringify([typeof sdk.createSlipcheckClient, typeof sig.verifyWebhookSignature, header.startsWith('t=') && header.includes(',v1='), new sdk.SlipcheckApiError({ statusCode: 402, code: 'QUOTA_EXCEEDED', message: 'm', requestId: null, quota: null, quotaHeaders: null, retryAfterSeconds: null, method: 'GET', path: '/quota', body: null }) instanceof Error]));`,
      ],
      { cwd: consumer },
    );
    expect(JSON.parse(cjs.stdout)).toEqual(['function', 'function', true, true]);
    const manifest = JSON.parse(fs.readFileSync(path.join(consumer, 'node_modules/@slipcheck/sdk/package.json'), 'utf8'));
    expect(manifest.dependencies ?? {}).toEqual({});
  });

  it('type-checks a strict consumer (exactOptionalPropertyTypes) under node16 and bundler resolution, ESM and CommonJS', async () => {
    const strict = {
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      noEmit: true,
      target: 'ES2022',
      typeRoots: [TYPE_ROOTS],
      types: ['node'],
      skipLibCheck: false,
    };
    const esmConsumer = `${readmeBlock(readme, 'quickstart-ts')}
import { TRANSACTION_FILTERS, readWebhookDelivery, verifyWebhookSignature, type TransactionFilters, type TransactionRecord, type VerifyOptions, type WebhookEvent, type WebhookEventData } from '@slipcheck/sdk';
const opts: VerifyOptions = { amount: undefined, clientRef: 'x' }; // explicit undefined is accepted
const ev: WebhookEvent = verifyWebhookSignature('{}', 't=1,v1=00', ['whsec_x'], { toleranceSeconds: Infinity });
const amount: TransactionRecord['amount'] = null; // INVALID answers carry null
const unreadable: Pick<WebhookEventData, 'transRef' | 'amount' | 'sender' | 'receiver'> = { transRef: null, amount: null, sender: null, receiver: null };
const filters: TransactionFilters = { environment: 'test', status: 'SUCCESS' };
const attempt: number | null = readWebhookDelivery({ 'x-service-attempt': '1' }).attempt;
export { opts, ev, amount, unreadable, filters, attempt, TRANSACTION_FILTERS };
`;
    write(consumer, 'src/app.mts', esmConsumer);
    write(
      consumer,
      'src/legacy.cts',
      `import { createSlipcheckClient, type Quota } from '@slipcheck/sdk';\nconst c = createSlipcheckClient({ apiKey: 'sk_test_x', baseUrl: 'http://127.0.0.1/api/v1', timeoutMs: undefined });\nexport const q: Promise<Quota> = c.quota();\n`,
    );
    write(
      consumer,
      'tsconfig.node16.json',
      JSON.stringify({ compilerOptions: { ...strict, module: 'node16', moduleResolution: 'node16' }, include: ['src'] }),
    );
    // The package's own .d.ts files are checked under node16 (skipLibCheck false); the bundler and
    // negative runs skip lib checking, which only saves time (@types/node is large).
    write(
      consumer,
      'tsconfig.bundler.json',
      JSON.stringify({
        compilerOptions: { ...strict, skipLibCheck: true, module: 'esnext', moduleResolution: 'bundler' },
        include: ['src/app.mts'],
      }),
    );
    // The checker is not vacuous: a wrong type in the same consumer is reported (its own folder, so
    // the two runs above do not see it and all three run side by side).
    write(
      consumer,
      'tsconfig.wrong.json',
      JSON.stringify({ extends: './tsconfig.node16.json', compilerOptions: { skipLibCheck: true }, include: ['src/app.mts', 'wrong'] }),
    );
    write(
      consumer,
      'wrong/wrong.mts',
      `import type { TransactionRecord } from '@slipcheck/sdk';\nexport const s: TransactionRecord['status'] = 'PAID';\n`,
    );
    const tsc = (project: string) =>
      run(process.execPath, [TSC, '-p', project], { cwd: consumer }).then(
        (r) => r.stdout,
        (e: { stdout: string }) => e.stdout,
      );
    const [node16, bundler, wrong] = await Promise.all(['tsconfig.node16.json', 'tsconfig.bundler.json', 'tsconfig.wrong.json'].map(tsc));
    expect(node16, 'tsconfig.node16.json').toBe('');
    expect(bundler, 'tsconfig.bundler.json').toBe('');
    expect(wrong).toContain('wrong.mts');
  }, 600_000);

  describe('README examples, verbatim, against a running service', () => {
    let h: Harness;
    let bank: Awaited<ReturnType<typeof createSandboxBank>>;
    let worker: OutboxWorker;
    let receiver: ChildProcess | undefined;

    beforeAll(async () => {
      bank = await createSandboxBank({ port: 0 });
      h = await createHarness('sqlite', { CHECKER_URL: bank.url, DECODE_THREADS: '1', WEBHOOK_RETRY_SCHEDULE: '0,0,0' });
      await h.app.listen({ port: 0, host: '127.0.0.1' });
      worker = createOutboxWorker({ db: h.c.db, caps: h.c.caps, clock: h.c.clock, handlers: h.c.outboxHandlers, pollMs: 100 });
      worker.start();
    }, 60_000);
    afterAll(async () => {
      receiver?.kill('SIGTERM');
      await worker?.stop({ abandon: true });
      await h?.close();
      await bank?.close();
    });

    it('quick start (TypeScript, compiled), CommonJS and the webhook receiver run as written', async () => {
      const { shop, key } = await seedShop(h);
      const base = `http://127.0.0.1:${(h.app.server.address() as net.AddressInfo).port}/api/v1`;
      const created = await fetch(`${bank.url}/transfers`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          sendingBank: '014',
          amount: 1250,
          sender: { name: 'นาย สมชาย ใจดี', account: '4081234567' },
          receiver: { name: 'ร้านกาแฟ', account: '1234566609', bankCode: '004' },
        }),
      });
      expect(created.status).toBe(201);
      const { transRef } = (await created.json()) as { transRef: string };
      fs.writeFileSync(
        path.join(consumer, 'slip.jpg'),
        Buffer.from(await (await fetch(`${bank.url}/transfers/${transRef}/slip.jpg`)).arrayBuffer()),
      );

      // The webhook receiver, started first, registered as the shop's endpoint.
      write(consumer, 'webhook.mjs', readmeBlock(readme, 'webhook-mjs'));
      const port = await freePort();
      const { secret } = await h.c.webhooks.addEndpoint(shop.id, {
        url: `http://127.0.0.1:${port}/webhooks/slipcheck`,
        description: 'README example',
      });
      receiver = spawn(process.execPath, ['webhook.mjs'], {
        cwd: consumer,
        env: { ...process.env, PORT: String(port), SLIPCHECK_WEBHOOK_SECRET: secret },
      });
      let received = '';
      receiver.stdout!.on('data', (d: Buffer) => {
        received += d.toString();
      });
      for (let i = 0; i < 100; i++) {
        const up = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' })
          .then((r) => r.status)
          .catch(() => 0);
        if (up) {
          expect(up).toBe(400);
          break;
        } // unsigned: refused
        await new Promise((r) => setTimeout(r, 50));
      }

      const env = { ...process.env, SLIPCHECK_API_KEY: key, SLIPCHECK_BASE_URL: base };
      write(consumer, 'quickstart/index.ts', readmeBlock(readme, 'quickstart-ts'));
      write(
        consumer,
        'quickstart/tsconfig.json',
        JSON.stringify({
          compilerOptions: {
            strict: true,
            exactOptionalPropertyTypes: true,
            module: 'node16',
            moduleResolution: 'node16',
            target: 'ES2022',
            outDir: 'out',
            typeRoots: [TYPE_ROOTS],
            types: ['node'],
          },
        }),
      );
      const compiled = await run(process.execPath, [TSC, '-p', 'quickstart'], { cwd: consumer }).catch((e: { stdout: string }) => e);
      expect((compiled as { stdout: string }).stdout).toBe('');
      const qs = await run(process.execPath, ['quickstart/out/index.js'], { cwd: consumer, env });
      const [meLine, resultLine] = qs.stdout.trim().split('\n');
      expect(meLine).toContain(shop.name);
      expect(meLine).toContain('6609');
      expect(resultLine).toMatch(/^SUCCESS true false \d+$/);

      write(consumer, 'quickstart.cjs', readmeBlock(readme, 'quickstart-cjs'));
      const cjs = await run(process.execPath, ['quickstart.cjs'], { cwd: consumer, env });
      expect(cjs.stdout).toMatch(/^quota 1\/\d+, resets in \d+ days$/m);
      const refused = await run(process.execPath, ['quickstart.cjs'], {
        cwd: consumer,
        env: { ...env, SLIPCHECK_API_KEY: 'sk_live_wrong' },
      }).catch((e: { code: number; stderr: string }) => e);
      expect((refused as { code: number }).code).toBe(1);
      expect((refused as { stderr: string }).stderr).toMatch(/^401 UNAUTHORIZED req_/m);

      for (let i = 0; i < 200 && !received.includes('slip.verified'); i++) await new Promise((r) => setTimeout(r, 50));
      expect(received.trim()).toBe(`slip.verified ${transRef} SUCCESS order-42`);
    }, 300_000);
  });
});
