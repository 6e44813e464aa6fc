// Builds the checker port from configuration: one adapter per named upstream, each wrapped in
// its own timeout/retry/breaker, chained for failover, under one overall deadline.
import type { Checker } from './checker-port.js';
import { accountError } from './checker-port.js';
import { cleanSlipNames, createKeepAliveFetch, type FetchFn } from './checker-http.js';
import { CHECKER_IDS, checkerAdapter, isCheckerName, type CheckerMember } from './checker-registry.js';
import {
  createFailoverChecker,
  createResilientChecker,
  withDeadline,
  type BreakerOptions,
  type ResilienceDeps,
} from './resilient-checker.js';
import { createCheckerIncidents, hasAccountRoute, hasReachProbe, type AccountStatus, type CheckerIncidents } from './checker-accounts.js';

export interface CheckerConfig {
  /** a name of the registry (checker-registry.ts: sandbox, easyslip, slipok), or a comma list for failover, e.g. 'easyslip,slipok' */
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
  /** account problems, quota and overage (alerts, /health); default: one without alerts */
  incidents?: CheckerIncidents;
}

export interface UpstreamAccount {
  upstream: string;
  adapter: string;
  status: AccountStatus | null;
  /** upstreams without an account route, when asked (`probe`): does it answer at all */
  reach?: { reachable: boolean; detail?: string };
}

export type ConfiguredChecker = Checker & {
  close(): Promise<void>;
  incidents: CheckerIncidents;
  /**
   * Calls each upstream's cheapest authenticated route (quota/account; never a slip check) and feeds
   * the answers to the incident tracker (metrics, overage cap). `status` is null for an upstream
   * without such a route (the sandbox); with `probe`, such an upstream is asked whether it answers
   * at all (`reach`; `slipcheck checker check`, not the periodic poll).
   */
  pollAccounts(signal?: AbortSignal, opts?: { probe?: boolean }): Promise<UpstreamAccount[]>;
};

export { CHECKER_IDS } from './checker-registry.js';

type Member = CheckerMember;

/**
 * Checks CHECKER / CHECKER_URL / CHECKER_KEY without building anything: config.ts calls it at load,
 * so a wrong URL stops the start with a sentence that says what to write (a wrong base URL otherwise
 * shows up only as "provider unavailable" on every slip). Returns the problems, empty when fine.
 */
export function checkerConfigProblems(cfg: Pick<CheckerConfig, 'checker' | 'checkerUrl' | 'checkerKey'>): string[] {
  try {
    return members(cfg).flatMap((m, i) => memberProblems(m, i));
  } catch (e) {
    return [(e as Error).message];
  }
}

/** The configured upstreams, one per CHECKER entry with its URL and key; throws on an empty or uneven list. */
export function checkerMembers(cfg: Pick<CheckerConfig, 'checker' | 'checkerUrl' | 'checkerKey'>): Member[] {
  return members(cfg);
}

function members(cfg: Pick<CheckerConfig, 'checker' | 'checkerUrl' | 'checkerKey'>): Member[] {
  const ids = cfg.checker
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (ids.length === 0) throw new Error(`CHECKER is empty: write one of ${CHECKER_IDS.join(', ')} (or a comma list)`);
  const urls = perMember(cfg.checkerUrl, ids.length, 'CHECKER_URL');
  const keys = perMember(cfg.checkerKey ?? '', ids.length, 'CHECKER_KEY');
  return ids.map((id, i) => ({ id, url: urls[i], key: keys[i] }));
}

function memberProblems(m: Member, i: number): string[] {
  if (!isCheckerName(m.id)) return [`CHECKER entry ${i + 1}: unknown checker '${m.id}' (known: ${CHECKER_IDS.join(', ')})`];
  const where = `CHECKER entry ${i + 1} (${m.id})`;
  const out: string[] = [];
  let u: URL | null = null;
  if (m.url) {
    try {
      u = new URL(m.url);
      if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error('protocol');
    } catch {
      out.push(`CHECKER_URL for ${where}: "${m.url}" is not an http(s) URL`);
      u = null;
    }
  }
  return [...out, ...checkerAdapter(m.id).problems(m, where, u)];
}

/**
 * The URL of each CHECKER entry, a `sandbox` entry left without one getting `sandboxUrl` (the
 * development sandbox bank; production refuses such an entry at load, config.ts). Entry by entry and
 * read as CHECKER is everywhere (any case and spacing): the callers tested `CHECKER === 'sandbox'`, so
 * `CHECKER=Sandbox` or a failover list with a sandbox entry passed the configuration check and then
 * stopped the service (and `checker check`) with a stack trace, "CHECKER_URL ... (sandbox): required".
 */
export function checkerUrlsWithSandboxDefault(
  cfg: Pick<CheckerConfig, 'checker' | 'checkerUrl' | 'checkerKey'>,
  sandboxUrl: string,
): string[] {
  return members(cfg).map((m) => (m.id === 'sandbox' && !m.url ? sandboxUrl : m.url));
}

export function createCheckerFromConfig(cfg: CheckerConfig): ConfiguredChecker {
  const list = members(cfg);
  const problems = list.flatMap((m, i) => memberProblems(m, i));
  // the sandbox needs its URL here (callers fill the default: checkerUrlsWithSandboxDefault)
  list.forEach((m, i) => {
    if (m.id === 'sandbox' && !m.url) problems.push(`CHECKER_URL for CHECKER entry ${i + 1} (sandbox): required`);
  });
  if (problems.length) throw new Error(problems.join('\n'));

  const owned = cfg.fetch ? null : createKeepAliveFetch();
  const fetchFn = cfg.fetch ?? owned!.fetch;
  const incidents = cfg.incidents ?? createCheckerIncidents();
  const deadlineMs = cfg.deadlineMs ?? Math.max(25_000, 2 * cfg.timeoutMs);
  // each member may spend its share of the deadline on retries, so a slow first upstream
  // still leaves time for the next one
  const memberDeadline = Math.max(cfg.timeoutMs, Math.floor(deadlineMs / list.length));

  const adapters = list.map((m, i) => createAdapter(m, fetchFn, list.length > 1 ? `${m.id}#${i}` : m.id));
  const chainMembers = adapters.map((adapter) => {
    const resilient = createResilientChecker(
      adapter,
      {
        timeoutMs: cfg.timeoutMs,
        deadlineMs: memberDeadline,
        maxAttempts: cfg.maxAttempts,
        breaker: cfg.breaker,
        // A timed-out request may have been done and billed: with another provider to ask, ask it.
        retryTimeouts: list.length === 1,
        observe: incidents.observe,
      },
      cfg.deps,
    );
    // Over CHECKER_MAX_OVERAGE the upstream is skipped without a call (account error: fail over).
    const capped: Checker = {
      id: resilient.id,
      supports: resilient.supports,
      check: async (q, o) =>
        incidents.isCapped(adapter.id)
          ? accountError('overage_cap', 'CHECKER_MAX_OVERAGE', `${adapter.id}: overage cap reached`)
          : resilient.check(q, o),
    };
    return capped;
  });
  const chain = withDeadline(createFailoverChecker(chainMembers), deadlineMs);
  return {
    id: chain.id,
    incidents,
    // Names are cleaned once, after failover, whichever upstream answered.
    check: async (q, o) => {
      const r = await chain.check(q, o);
      return r.kind === 'FOUND' ? { ...r, slip: cleanSlipNames(r.slip) } : r;
    },
    async pollAccounts(signal, opts) {
      return Promise.all(
        adapters.map(async (a, i) => {
          if (!hasAccountRoute(a)) {
            const reach = opts?.probe && hasReachProbe(a) ? await a.reach(signal ?? AbortSignal.timeout(cfg.timeoutMs)) : undefined;
            return { upstream: a.id, adapter: list[i].id, status: null, ...(reach && { reach }) };
          }
          const status = await a.account(signal ?? AbortSignal.timeout(cfg.timeoutMs));
          incidents.recordAccount(a.id, status);
          return { upstream: a.id, adapter: list[i].id, status };
        }),
      );
    },
    close: async () => {
      await owned?.close();
    },
  };
}

function createAdapter(m: Member, fetchFn: FetchFn, label: string): Checker {
  return checkerAdapter(m.id).create(m, fetchFn, label);
}

function perMember(v: string | string[], n: number, name: string): string[] {
  const list = (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim());
  if (list.length === 1) return Array.from({ length: n }, () => list[0]);
  if (list.length !== n)
    throw new Error(`${name} has ${list.length} entries for ${n} checkers: give one per CHECKER entry, in the same order`);
  return list;
}
