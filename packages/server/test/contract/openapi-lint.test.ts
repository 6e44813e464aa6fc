// The served OpenAPI document passes @redocly/cli's recommended rules with 0 errors and 0 warnings, and says what
// an integrator needs: the raw image body of verify, the headers, the webhooks, health without a key.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../scripts/gen-api-types.js';

const run = promisify(execFile);
const REDOCLY = path.resolve(import.meta.dirname, '../../../../node_modules/@redocly/cli/bin/cli.js');

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function lint(doc: Json): Promise<{ errors: number; warnings: number; problems: Json[] }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slipcheck-lint-'));
  try {
    const file = path.join(dir, 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(doc));
    const r = await run(process.execPath, [REDOCLY, 'lint', file, '--format', 'json'], {
      cwd: dir,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      maxBuffer: 16 << 20,
    }).catch((e: { stdout: string }) => e);
    const out = JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))) as { totals: { errors: number; warnings: number }; problems: Json[] };
    return { ...out.totals, problems: out.problems };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('OpenAPI document', () => {
  it('lints with 0 errors and 0 warnings (redocly recommended rules)', async () => {
    const doc = (await openApiDocument()) as Json;
    const result = await lint(doc);
    expect(result.problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(result.errors).toBe(0);
    expect(result.warnings).toBe(0);
    // Every operation (paths and webhooks) has its own operationId: generated clients name their methods after them.
    const ids = [...Object.values<Json>(doc.paths), ...Object.values<Json>(doc.webhooks)].flatMap((item) =>
      Object.values<Json>(item).map((op) => op.operationId as string),
    );
    expect(
      ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]+$/.test(id)),
      ids.join(),
    ).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.info.license).toMatchObject({ name: expect.any(String) });
    expect(doc.info.contact).toMatchObject({ name: expect.any(String) });
    // The warnings count is live too: an operation without an id is a warning.
    delete doc.paths['/api/v1/quota'].get.operationId;
    expect((await lint(doc)).warnings).toBeGreaterThan(0);
    // The linter is live: a broken reference is an error.
    doc.paths['/api/v1/quota'].get.responses['200'].content['application/json'].schema = { $ref: '#/components/schemas/Nope' };
    expect((await lint(doc)).errors).toBeGreaterThan(0);
  }, 60_000);

  it('documents the verify body, query, headers, refusals, webhooks and health security', async () => {
    const doc = (await openApiDocument()) as Json;
    const verify = doc.paths['/api/v1/verify'].post;
    const response = (res: Json): Json => (res.$ref ? doc.components.responses[res.$ref.split('/').pop()] : res);
    for (const media of ['application/octet-stream', 'image/jpeg', 'image/png']) {
      expect(verify.requestBody.content[media].schema).toMatchObject({ type: 'string', format: 'binary' });
    }
    expect(
      verify.parameters
        .filter((p: Json) => p.in === 'query')
        .map((p: Json) => p.name)
        .sort(),
    ).toEqual(['amount', 'clientRef']);
    for (const code of ['200', '400', '401', '402', '403', '405', '413', '422', '429', '503'])
      expect(verify.responses[code], code).toBeDefined();
    expect(Object.keys(verify.responses['200'].headers).sort()).toEqual([
      'X-Request-Id',
      'X-Service-Quota-Limit',
      'X-Service-Quota-Remaining',
      'X-Service-Quota-Reset-Days',
      'X-Service-Quota-Used',
    ]);
    expect(response(verify.responses['429']).headers['Retry-After']).toBeDefined();
    expect(response(verify.responses['503']).headers['Retry-After']).toBeDefined();
    expect(response(verify.responses['405']).headers.Allow).toBeDefined();
    for (const [p, item] of Object.entries<Json>(doc.paths)) {
      for (const op of Object.values<Json>(item)) {
        if (p.startsWith('/api/v1/')) expect(op.security, p).toEqual([{ apiKey: [] }]);
        else expect(op.security, p).toEqual([]);
        for (const res of Object.values<Json>(op.responses)) expect(response(res).headers['X-Request-Id'], p).toBeDefined();
      }
    }
    // A refusal that is the same everywhere is defined once and referenced (not repeated per route).
    expect(verify.responses['401']).toEqual({ $ref: '#/components/responses/Unauthorized' });
    expect(doc.paths['/api/v1/quota'].get.responses['401']).toEqual({ $ref: '#/components/responses/Unauthorized' });
    expect(doc.components.responses.Unauthorized.headers['X-Service-Quota-Limit']).toBeDefined();
    expect(Object.keys(doc.webhooks).sort()).toEqual(['slip.duplicate', 'slip.failed', 'slip.verified']);
    const hook = doc.webhooks['slip.verified'].post;
    expect(hook.parameters.find((p: Json) => p.name === 'X-Service-Signature')).toMatchObject({ in: 'header', required: true });
    expect(hook.description).toContain('HMAC-SHA256');
    expect(doc.components.schemas.WebhookEvent.properties.data.properties.amount.type).toEqual(['number', 'null']);
  }, 60_000);
});
