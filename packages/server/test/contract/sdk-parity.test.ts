// The SDK can filter GET /api/v1/transactions by every query parameter the API documents: a filter
// added to the route (and so to the OpenAPI document) and missing in the SDK fails here.
import { describe, expect, it } from 'vitest';
import { TRANSACTION_FILTERS } from '@slipcheck/sdk';
import { openApiDocument } from '../../scripts/gen-api-types.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The operation with this operationId, wherever it is in `paths`. */
function operation(doc: Json, operationId: string): Json {
  for (const item of Object.values<Json>(doc.paths)) {
    for (const op of Object.values<Json>(item)) if (op?.operationId === operationId) return op;
  }
  throw new Error(`no operation ${operationId}`);
}

describe('SDK parity with the OpenAPI document', () => {
  it("listTransactions' filters are exactly the query parameters of the listTransactions operation", async () => {
    const doc = (await openApiDocument()) as Json;
    const list = operation(doc, 'listTransactions');
    const params = (list.parameters as Json[])
      .map((p) => (p.$ref ? doc.components.parameters[p.$ref.split('/').pop()] : p))
      .filter((p) => p.in === 'query')
      .map((p) => p.name as string);
    expect([...TRANSACTION_FILTERS].sort()).toEqual(params.sort());
    expect(params).toContain('environment');
    // The comparison is live: one more parameter in the document is a difference.
    expect([...TRANSACTION_FILTERS].sort()).not.toEqual([...params, 'bankCode'].sort());
  }, 60_000);
});
