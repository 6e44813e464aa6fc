import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DASHBOARD_TYPES_FILE, dashboardDocument, generateDashboardTypes } from '../../scripts/gen-api-types.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// The web app's only source for the service's shapes (issue 25): generated from the /api/dashboard
// routes' schemas as the SDK's types are from the public document.
describe('generated dashboard types (the web app and the dashboard routes cannot drift)', () => {
  it('packages/web/src/api/dashboard-types.gen.ts is what the dashboard routes generate (run `npm run gen:types -w packages/server`)', async () => {
    const doc = (await dashboardDocument()) as Json;
    // The private document holds the dashboard's routes and nothing of the public API (and the other way round, in api-types-current).
    const paths = Object.keys(doc.paths);
    expect(paths.length).toBeGreaterThan(40);
    expect(paths.filter((p) => !p.startsWith('/api/dashboard/'))).toEqual([]);
    expect(paths).toEqual(
      expect.arrayContaining(['/api/dashboard/payees', '/api/dashboard/api-keys', '/api/dashboard/settings', '/api/dashboard/webhooks']),
    );
    expect(fs.readFileSync(DASHBOARD_TYPES_FILE, 'utf8')).toBe(await generateDashboardTypes(doc));
  }, 60_000);

  it('a route schema change shows up as a difference (the check is not vacuous)', async () => {
    const doc = (await dashboardDocument()) as Json;
    const settings = doc.paths['/api/dashboard/settings'].get.responses['200'].content['application/json'].schema;
    settings.properties.data.properties.shopName = { type: 'number' };
    expect(await generateDashboardTypes(doc)).not.toBe(fs.readFileSync(DASHBOARD_TYPES_FILE, 'utf8'));
  }, 60_000);
});
