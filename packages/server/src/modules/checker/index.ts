export * from './checker-port.js';
export {
  createCheckerFromConfig,
  checkerConfigProblems,
  CHECKER_IDS,
  type CheckerConfig,
  type ConfiguredChecker,
  type UpstreamAccount,
} from './checker-factory.js';
export {
  createCheckerIncidents,
  type CheckerIncidents,
  type CheckerHealth,
  type OperatorNotice,
  type AccountStatus,
} from './checker-accounts.js';
export {
  createResilientChecker,
  createFailoverChecker,
  createCircuitBreaker,
  withDeadline,
  type ResilientChecker,
  type ResilientOptions,
  type BreakerOptions,
  type BreakerState,
  type ResilienceDeps,
} from './resilient-checker.js';
export { createSandboxChecker } from './sandbox-checker.js';
export { createEasySlipChecker } from './easyslip-checker.js';
export { createSlipOkChecker } from './slipok-checker.js';
export { createKeepAliveFetch, type FetchFn } from './checker-http.js';
