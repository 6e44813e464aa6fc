// What `npm start` (scripts/start.js) runs beside the service, read from the environment with the
// service's own rules (packages/server/src/config.ts), so the two never disagree: a boolean is off
// for 0/false/no/off in any case, and CHECKER is a comma list of names in any case and spacing. The
// script used to test `=== 'false'` and `split(',').includes('sandbox')`, so SANDBOX_AUTOSTART=0 still
// started the sandbox bank, and CHECKER='easyslip, sandbox' (or Sandbox) left the service checking
// against a sandbox bank nobody started.

const OFF = /^(0|false|no|off)$/i;
const on = (raw) => raw === undefined || raw === '' || !OFF.test(raw);

/** @param {Record<string, string | undefined>} env @returns {{ sandboxBank: boolean, sandboxLine: boolean }} */
export function startPlan(env) {
  if (env.NODE_ENV === 'production') return { sandboxBank: false, sandboxLine: false };
  const checkers = (env.CHECKER || 'sandbox').split(',').map((s) => s.trim().toLowerCase());
  return {
    sandboxBank: checkers.includes('sandbox') && on(env.SANDBOX_AUTOSTART),
    sandboxLine: on(env.SANDBOX_LINE_AUTOSTART),
  };
}
