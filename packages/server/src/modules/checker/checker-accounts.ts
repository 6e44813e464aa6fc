// Provider accounts as the operator sees them: account problems (quota, key, IP allow-list,
// package, branch) become incidents that are logged with the provider's code, alerted once, shown
// on /health, and cleared by the next real answer; polled quota and overage feed metrics and the
// overage cap. Nothing here is ever shown to shops.
import type { AccountReason, CheckerResult } from './checker-port.js';
import { metrics } from '../../lib/metrics.js';

export interface AccountStatus {
  /** the provider answered HTTP at all */
  reachable: boolean;
  /** null when the answer does not say (network error, unexpected status) */
  credentialsAccepted: boolean | null;
  /** checks left in the package; null when the provider does not say (or is unlimited) */
  quotaRemaining?: number | null;
  /** checks used past the package quota (billed as overage); null when the provider has no overage */
  overage?: number | null;
  problem?: AccountReason;
  providerCode?: string;
  detail?: string;
}

/** An adapter whose provider has an authenticated account/quota route that verifies no slip. */
export interface ProviderAccount {
  account(signal?: AbortSignal): Promise<AccountStatus>;
}

export function hasAccountRoute(c: unknown): c is ProviderAccount {
  return typeof (c as ProviderAccount | null)?.account === 'function';
}

/**
 * An adapter without an account route that can still say whether its upstream answers at all (the
 * sandbox bank's /health): `slipcheck checker check` must not call an upstream nobody can reach fine.
 */
export interface ReachProbe {
  reach(signal?: AbortSignal): Promise<{ reachable: boolean; detail?: string }>;
}

export function hasReachProbe(c: unknown): c is ReachProbe {
  return typeof (c as ReachProbe | null)?.reach === 'function';
}

export type OperatorNotice =
  | { type: 'ACCOUNT_PROBLEM'; upstream: string; reason: AccountReason; providerCode?: string; since: string }
  | { type: 'ACCOUNT_RECOVERED'; upstream: string; reason: AccountReason; since: string }
  | { type: 'OVERAGE_NEAR_CAP'; upstream: string; overage: number; cap: number }
  | { type: 'OVERAGE_CAP_REACHED'; upstream: string; overage: number; cap: number };

export interface IncidentLog {
  warn(obj: unknown, msg?: string): void;
  info(obj: unknown, msg?: string): void;
}

export interface CheckerIncidentsOptions {
  now?: () => Date;
  log?: IncidentLog;
  /** the operator alert (e-mail); called once per incident, errors are the caller's to swallow */
  notify?: (n: OperatorNotice) => unknown;
  /** CHECKER_MAX_OVERAGE: 0 = no cap */
  maxOverage?: number;
  /** share of the cap at which the operator is warned; default 0.8 */
  warnAt?: number;
}

interface Incident {
  reason: AccountReason;
  providerCode?: string;
  since: string;
}

export interface CheckerHealth {
  status: 'up' | 'degraded';
  upstreams: Array<{ upstream: string; problem: AccountReason; since: string }>;
}

export type CheckerIncidents = ReturnType<typeof createCheckerIncidents>;

export function createCheckerIncidents(opts: CheckerIncidentsOptions = {}) {
  const now = opts.now ?? (() => new Date());
  const open = new Map<string, Incident>();
  const quota = new Map<string, AccountStatus>();
  const capped = new Set<string>();
  const warned = new Set<string>();
  const maxOverage = opts.maxOverage ?? 0;
  const warnAt = opts.warnAt ?? 0.8;

  const notify = (n: OperatorNotice) => {
    try {
      void Promise.resolve(opts.notify?.(n)).catch((err: unknown) =>
        opts.log?.warn({ err: (err as Error)?.message }, 'operator alert failed'),
      );
    } catch (err) {
      opts.log?.warn({ err: (err as Error)?.message }, 'operator alert failed');
    }
  };

  function openIncident(upstream: string, reason: AccountReason, providerCode?: string) {
    const cur = open.get(upstream);
    if (cur && cur.reason === reason) return;
    const inc = { reason, providerCode, since: now().toISOString() };
    open.set(upstream, inc);
    // The provider's own code goes to the operator's log and mail only, never to a shop.
    opts.log?.warn({ upstream, reason, providerCode }, 'checker provider account problem: failing over');
    notify({ type: 'ACCOUNT_PROBLEM', upstream, reason, providerCode, since: inc.since });
  }

  function closeIncident(upstream: string) {
    const cur = open.get(upstream);
    if (!cur || cur.reason === 'overage_cap') return;
    open.delete(upstream);
    opts.log?.info({ upstream, reason: cur.reason, since: cur.since }, 'checker provider account recovered');
    notify({ type: 'ACCOUNT_RECOVERED', upstream, reason: cur.reason, since: cur.since });
  }

  return {
    /** every attempt's answer (resilient-checker `observe`) */
    observe(upstream: string, r: CheckerResult) {
      if (r.kind === 'UNAVAILABLE') {
        if (r.account && r.account !== 'overage_cap') openIncident(upstream, r.account, r.providerCode);
        return;
      }
      // A bank answer (found, not found, pending) means the account works again. UNSUPPORTED does not
      // count: an adapter may say it without asking the provider (no image for the wallet endpoint).
      if (r.kind !== 'UNSUPPORTED') closeIncident(upstream);
    },
    /** a polled account/quota answer (the quota poller and `slipcheck checker check`) */
    recordAccount(upstream: string, s: AccountStatus) {
      quota.set(upstream, s);
      if (typeof s.quotaRemaining === 'number') metrics.checkerQuotaRemaining.set({ upstream }, s.quotaRemaining);
      if (typeof s.overage === 'number') metrics.checkerOverage.set({ upstream }, s.overage);
      if (s.problem && s.problem !== 'overage_cap') openIncident(upstream, s.problem, s.providerCode);
      if (maxOverage > 0 && typeof s.overage === 'number') {
        if (s.overage >= maxOverage) {
          if (!capped.has(upstream)) {
            capped.add(upstream);
            opts.log?.warn(
              { upstream, overage: s.overage, cap: maxOverage },
              'checker overage cap reached: provider taken out of the chain',
            );
            notify({ type: 'OVERAGE_CAP_REACHED', upstream, overage: s.overage, cap: maxOverage });
            open.set(upstream, { reason: 'overage_cap', since: now().toISOString() });
          }
        } else {
          if (capped.delete(upstream) && open.get(upstream)?.reason === 'overage_cap') open.delete(upstream);
          if (s.overage >= Math.ceil(maxOverage * warnAt)) {
            if (!warned.has(upstream)) {
              warned.add(upstream);
              opts.log?.warn({ upstream, overage: s.overage, cap: maxOverage }, 'checker overage near the cap');
              notify({ type: 'OVERAGE_NEAR_CAP', upstream, overage: s.overage, cap: maxOverage });
            }
          } else warned.delete(upstream);
        }
      }
    },
    /** over CHECKER_MAX_OVERAGE: the chain skips this upstream (an account error, no call made) */
    isCapped: (upstream: string) => capped.has(upstream),
    health(): CheckerHealth {
      const upstreams = [...open].map(([upstream, i]) => ({ upstream, problem: i.reason, since: i.since }));
      return { status: upstreams.length ? 'degraded' : 'up', upstreams };
    },
    lastAccount: (upstream: string) => quota.get(upstream) ?? null,
  };
}
