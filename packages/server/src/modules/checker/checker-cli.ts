// `slipcheck checker check`: is each configured provider account usable, without checking a slip?
// It calls each provider's cheapest authenticated route (its quota/account route) and prints, per
// provider: reachable, credentials accepted, quota left, overage, and the account problem if any.
// Operator-only output: it names the upstreams (the operator runs those accounts).
import { ConfigError, loadConfig, productionWarnings } from '../../config.js';
import type { CliCommand } from '../../cli/cli-command.js';
import { checkerUrlsWithSandboxDefault, createCheckerFromConfig } from './checker-factory.js';

export const CHECKER_USAGE = `  checker check                              (each checker provider: reachable, credentials accepted, quota left, overage; verifies no slip)`;

export const checkerCommands: Record<string, CliCommand> = {
  'checker check': async (argv, out, env) => {
    if (argv.length) {
      out.stderr(`Usage: slipcheck checker check\n${CHECKER_USAGE}`);
      return 2;
    }
    let config;
    try {
      config = loadConfig({ ...env, LOG_LEVEL: env.LOG_LEVEL ?? 'warn' });
    } catch (e) {
      if (e instanceof ConfigError) {
        out.stderr(e.message);
        return 78;
      }
      throw e;
    }
    for (const w of productionWarnings(config)) out.stderr(`Warning: ${w}`);
    const sandbox = `http://127.0.0.1:${config.SANDBOX_PORT}`;
    const checker = createCheckerFromConfig({
      checker: config.CHECKER,
      checkerUrl: checkerUrlsWithSandboxDefault(
        { checker: config.CHECKER, checkerUrl: config.CHECKER_URL, checkerKey: config.CHECKER_KEY },
        sandbox,
      ),
      checkerKey: config.CHECKER_KEY,
      timeoutMs: config.CHECKER_TIMEOUT_MS,
      deadlineMs: config.CHECKER_DEADLINE_MS,
    });
    try {
      const polled = await checker.pollAccounts(undefined, { probe: true });
      const providers = polled.map(({ upstream, adapter, status, reach }) => {
        if (!status) {
          if (!reach) return { upstream, adapter, accountRoute: false, note: 'no account route: not checked' };
          return {
            upstream,
            adapter,
            accountRoute: false,
            reachable: reach.reachable,
            detail: reach.detail ?? null,
            note: 'no account route: reachability only',
          };
        }
        const capReached =
          config.CHECKER_MAX_OVERAGE > 0 && typeof status.overage === 'number' && status.overage >= config.CHECKER_MAX_OVERAGE;
        return {
          upstream,
          adapter,
          accountRoute: true,
          reachable: status.reachable,
          credentialsAccepted: status.credentialsAccepted,
          quotaRemaining: status.quotaRemaining ?? null,
          overage: status.overage ?? null,
          overageCap: config.CHECKER_MAX_OVERAGE || null,
          problem: capReached ? 'overage_cap' : (status.problem ?? null),
          providerCode: status.providerCode ?? null,
          detail: status.detail ?? null,
        };
      });
      out.stdout(JSON.stringify({ providers }, null, 2));
      const bad = providers.some((p) => {
        if (!p.accountRoute) return 'reachable' in p && p.reachable !== true;
        return p.reachable !== true || p.credentialsAccepted !== true || p.problem;
      });
      return bad ? 1 : 0;
    } finally {
      await checker.close();
    }
  },
};
