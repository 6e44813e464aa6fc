#!/usr/bin/env node
// The operator CLI entry: runs the TypeScript sources through tsx, so no build step is needed.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../src/cli/cli.ts');
process.exitCode = await runCli(process.argv.slice(2));
