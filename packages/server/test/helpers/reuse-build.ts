/**
 * `npm test` (scripts/test.js) builds every package just before the tests and sets
 * SLIPCHECK_TEST_REUSE_BUILD. Child processes that only need the service then run that build under
 * plain node (about half the start-up CPU of tsx compiling the sources), and the packaging tests use
 * it instead of building again. A targeted run, which may have a stale dist/ or none, uses the sources.
 */
export const REUSE_BUILD = !!process.env.SLIPCHECK_TEST_REUSE_BUILD;

/**
 * Node's flags for a child that imports the service: the build, with the workspace packages resolved
 * to their compiled files (the `slipcheck-dist` export condition, as start:prod runs), or the sources
 * through tsx.
 */
export const SERVICE_LOADER = REUSE_BUILD ? ['--conditions=slipcheck-dist'] : ['--import', 'tsx'];
