// The checker adapters by their CHECKER name: one registry for building them (checker-factory.ts),
// for checking the configuration when it loads (config.ts lists the valid names from here) and for
// the documentation of CHECKER and CHECKER_URL (README; test/checker/checker-config.test.ts holds
// them equal). A new adapter is one entry here.
import type { Checker } from './checker-port.js';
import type { FetchFn } from './checker-http.js';
import { createSandboxChecker } from './sandbox-checker.js';
import { createEasySlipChecker, EASYSLIP_DEFAULT_URL } from './easyslip-checker.js';
import { createSlipOkChecker } from './slipok-checker.js';

/** One configured upstream: its CHECKER name with the matching CHECKER_URL and CHECKER_KEY entries. */
export interface CheckerMember {
  id: string;
  url: string;
  key: string;
}

export interface CheckerAdapter {
  /** What CHECKER_URL means for this adapter (configuration documentation). */
  urlDoc: string;
  /** The problems of one member's URL and key, each a sentence saying what to write; `url` is the parsed URL when one was given. */
  problems(m: CheckerMember, where: string, url: URL | null): string[];
  create(m: CheckerMember, fetch: FetchFn, id: string): Checker;
}

// "EasySlip API keys are UUID v4 format strings" (document: guide/authentication)
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const CHECKER_ADAPTERS = {
  sandbox: {
    urlDoc: 'sandbox = default the sandbox bank',
    problems: () => [],
    create: (m, fetch, id) => createSandboxChecker({ url: m.url, key: m.key || undefined, fetch, id }),
  },
  easyslip: {
    urlDoc: `easyslip = base without a version (default \`${EASYSLIP_DEFAULT_URL}\`)`,
    problems(m, where, u) {
      const out: string[] = [];
      if (!m.key) out.push(`CHECKER_KEY for ${where}: required (the API key from the provider's developer portal)`);
      else if (!UUID.test(m.key))
        out.push(`CHECKER_KEY for ${where}: the provider's API keys are UUIDs (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)`);
      if (u && /\/(v\d+|api)(\/|$)/i.test(u.pathname)) {
        out.push(
          `CHECKER_URL for ${where}: write the base URL without a version or path, e.g. ${EASYSLIP_DEFAULT_URL} (the service adds /v2/verify/...); got "${m.url}"`,
        );
      }
      return out;
    },
    create: (m, fetch, id) => createEasySlipChecker({ url: m.url || undefined, key: m.key, fetch, id }),
  },
  slipok: {
    urlDoc: 'slipok = `https://api.slipok.com/api/line/apikey/<BRANCH_ID>`',
    problems(m, where, u) {
      const out: string[] = [];
      if (!m.key) out.push(`CHECKER_KEY for ${where}: required (the API key of the branch)`);
      else if (/\s/.test(m.key)) out.push(`CHECKER_KEY for ${where}: must not contain spaces`);
      if (!m.url) out.push(`CHECKER_URL for ${where}: required, with the branch id: https://api.slipok.com/api/line/apikey/<BRANCH_ID>`);
      else if (u && !/\/api\/line\/apikey\/\d+\/?$/.test(u.pathname)) {
        out.push(
          `CHECKER_URL for ${where}: must end with the branch id, e.g. https://api.slipok.com/api/line/apikey/12345 (branch id from the provider's dashboard); got "${m.url}"`,
        );
      }
      return out;
    },
    create: (m, fetch, id) => createSlipOkChecker({ url: m.url, key: m.key, fetch, id }),
  },
} as const satisfies Record<string, CheckerAdapter>;

export type CheckerName = keyof typeof CHECKER_ADAPTERS;
/** The valid CHECKER names, in the registry's order. */
export const CHECKER_IDS = Object.freeze(Object.keys(CHECKER_ADAPTERS) as CheckerName[]);

export const isCheckerName = (id: string): id is CheckerName => Object.hasOwn(CHECKER_ADAPTERS, id);

/** The adapter of a CHECKER name; throws, naming the valid ones, for an unknown name. */
export function checkerAdapter(id: string): CheckerAdapter {
  if (!isCheckerName(id)) throw new Error(`unknown checker '${id}' (known: ${CHECKER_IDS.join(', ')})`);
  return CHECKER_ADAPTERS[id];
}
