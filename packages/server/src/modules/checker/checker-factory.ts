// Builds the checker port from configuration: one adapter per named upstream, each wrapped in
// its own timeout/retry/breaker, chained for failover, under one overall deadline.
import type { Checker } from './checker-port.js';
import { cleanSlipNames, createKeepAliveFetch, type FetchFn } from './checker-http.js';
import { createSandboxChecker } from './sandbox-checker.js';
import { createEasySlipChecker } from './easyslip-checker.js';
import { createSlipOkChecker } from './slipok-checker.js';
import {
  createFailoverChecker,
  createResilientChecker,
  withDeadline,
  type BreakerOptions,
  type ResilienceDeps,
} from './resilient-checker.js';

export interface CheckerConfig {
  /** 'sandbox' | 'easyslip' | 'slipok', or a comma list for failover, e.g. 'easyslip,sandbox' */
  checker: string;
  /** one per member (array or comma list); a single value applies to every member; '' = adapter default */
  checkerUrl: string | string[];
  checkerKey?: string | string[];
  /** per attempt */
  timeoutMs: number;
  /** whole check, all members and retries; default max(25 s, 2 x timeoutMs) */
  deadlineMs?: number;
  /** tests inject a fetch; otherwise a keep-alive undici Agent is created */
  fetch?: FetchFn;
  maxAttempts?: number;
  breaker?: BreakerOptions;
  deps?: ResilienceDeps;
}

export type ConfiguredChecker = Checker & { close(): Promise<void> };

export const CHECKER_IDS = ['sandbox', 'easyslip', 'slipok'] as const;

export function createCheckerFromConfig(cfg: CheckerConfig): ConfiguredChecker {
  const ids = cfg.checker
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (ids.length === 0) throw new Error('CHECKER is empty');
  const urls = perMember(cfg.checkerUrl, ids.length, 'CHECKER_URL');
  const keys = perMember(cfg.checkerKey ?? '', ids.length, 'CHECKER_KEY');

  const owned = cfg.fetch ? null : createKeepAliveFetch();
  const fetchFn = cfg.fetch ?? owned!.fetch;
  const deadlineMs = cfg.deadlineMs ?? Math.max(25_000, 2 * cfg.timeoutMs);
  // each member may spend its share of the deadline on retries, so a slow first upstream
  // still leaves time for the next one
  const memberDeadline = Math.max(cfg.timeoutMs, Math.floor(deadlineMs / ids.length));

  const members = ids.map((id, i) => {
    const adapter = createAdapter(id, urls[i], keys[i], fetchFn, ids.length > 1 ? `${id}#${i}` : id);
    return createResilientChecker(
      adapter,
      { timeoutMs: cfg.timeoutMs, deadlineMs: memberDeadline, maxAttempts: cfg.maxAttempts, breaker: cfg.breaker },
      cfg.deps,
    );
  });
  const chain = withDeadline(createFailoverChecker(members), deadlineMs);
  return {
    id: chain.id,
    // Names are cleaned once, after failover, whichever upstream answered.
    check: async (q, o) => {
      const r = await chain.check(q, o);
      return r.kind === 'FOUND' ? { ...r, slip: cleanSlipNames(r.slip) } : r;
    },
    close: async () => {
      await owned?.close();
    },
  };
}

function createAdapter(id: string, url: string, key: string, fetchFn: FetchFn, label: string): Checker {
  switch (id) {
    case 'sandbox':
      if (!url) throw new Error('CHECKER_URL is required for the sandbox checker');
      return createSandboxChecker({ url, key: key || undefined, fetch: fetchFn, id: label });
    case 'easyslip':
      if (!key) throw new Error(`CHECKER_KEY is required for checker '${id}'`);
      return createEasySlipChecker({ url: url || undefined, key, fetch: fetchFn, id: label });
    case 'slipok':
      if (!key) throw new Error(`CHECKER_KEY is required for checker '${id}'`);
      if (!url) throw new Error(`CHECKER_URL (including the branch id) is required for checker '${id}'`);
      return createSlipOkChecker({ url, key, fetch: fetchFn, id: label });
    default:
      throw new Error(`unknown checker '${id}' (known: ${CHECKER_IDS.join(', ')})`);
  }
}

function perMember(v: string | string[], n: number, name: string): string[] {
  const list = (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim());
  if (list.length === 1) return Array.from({ length: n }, () => list[0]);
  if (list.length !== n) throw new Error(`${name} has ${list.length} entries for ${n} checkers`);
  return list;
}
