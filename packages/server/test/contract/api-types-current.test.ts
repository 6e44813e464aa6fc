import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateApiTypes, openApiDocument, SDK_TYPES_FILE } from '../../scripts/gen-api-types.js';

describe('generated API types (one source for the contract)', () => {
  it('packages/sdk/src/api-types.gen.ts is what the current OpenAPI document generates (run `npm run gen:types -w packages/server`)', async () => {
    const doc = await openApiDocument();
    const fresh = await generateApiTypes(doc);
    expect(fs.readFileSync(SDK_TYPES_FILE, 'utf8')).toBe(fresh);
    // The drift this replaced: an INVALID answer carries null transRef/amount, and the type says so.
    const record = fresh.slice(
      fresh.indexOf('        TransactionRecord: {'),
      fresh.indexOf('\n        };', fresh.indexOf('        TransactionRecord: {')),
    );
    expect(record).toContain('amount: number | null;');
    expect(record).toContain('transRef: string | null;');
  }, 60_000);

  it('a schema change shows up as a difference (the check is not vacuous)', async () => {
    const doc = await openApiDocument();
    const schemas = (doc.components as { schemas: Record<string, { properties: Record<string, unknown> }> }).schemas;
    schemas.TransactionRecord!.properties.amount = { type: 'number' };
    expect(await generateApiTypes(doc)).not.toBe(fs.readFileSync(SDK_TYPES_FILE, 'utf8'));
  }, 60_000);
});
