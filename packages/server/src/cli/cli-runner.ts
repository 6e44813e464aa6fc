import fs from 'node:fs';
import { ConfigError, loadConfig } from '../config.js';
import { createContainer, type Container } from '../container.js';
import { sqliteFile } from '../db/db.js';
import { AppError } from '../errors.js';
import { UsageError } from './cli-args.js';
import type { CliCommand, Env, ModuleCommand, Out } from './cli-command.js';

export type { CliCommand, Env, Out } from './cli-command.js';

/**
 * Every container-backed command runs through here, so they all read the same configuration, print
 * JSON on stdout, human errors on stderr, and exit 2 (usage), 78 (configuration) or 1 (refused).
 */
export async function withContainer(
  env: Env,
  out: Out,
  usage: string,
  fn: (c: Container) => Promise<unknown>,
  print = true,
  opts: { createsDatabase?: boolean; exitCode?: (result: unknown) => number } = {},
): Promise<number> {
  let c: Container | undefined;
  try {
    const config = loadConfig({ ...env, LOG_LEVEL: env.LOG_LEVEL ?? 'warn' });
    // Run from the wrong folder, a command made ./data with an empty database and a new development
    // secret, then answered "shop not found" about shops that exist. Only `migrate` creates one.
    const file = sqliteFile(config.DATA_DIR);
    if (!config.DATABASE_URL && !opts.createsDatabase && !fs.existsSync(file))
      throw new ConfigError(
        `No slipcheck database at ${file}. Run the command from the folder the service runs in (npm start creates ./data), or set DATA_DIR or DATABASE_URL to the service's; to start a new database there, run \`npx slipcheck migrate\` first.`,
      );
    c = await createContainer(config);
    const result = await fn(c);
    if (print) out.stdout(JSON.stringify(result, null, 2));
    return opts.exitCode?.(result) ?? 0;
  } catch (e) {
    if (e instanceof UsageError) {
      out.stderr(`Usage error: ${e.message}\n\n${usage}`);
      return 2;
    }
    if (e instanceof ConfigError) {
      out.stderr(e.message);
      return 78;
    }
    if (e instanceof AppError) {
      out.stderr(`Error ${e.code}: ${e.message}`);
      return 1;
    }
    out.stderr(`Failed: ${(e as Error).message}`);
    return 1;
  } finally {
    await c?.close();
  }
}

/**
 * A module's command bound to the container: `pick` (written in cli.ts) takes from the container what the
 * command declares it uses, so the module never sees the container itself.
 */
export function bindCommand<D>(command: ModuleCommand<D>, pick: (c: Container) => D): CliCommand {
  return async (argv, out, env) => {
    const refused = command.precheck?.(argv);
    if (refused !== undefined) {
      out.stderr(refused);
      return 2;
    }
    return withContainer(env, out, command.usage, (c) => command.run(pick(c), argv, out), command.print ?? true, {
      createsDatabase: command.createsDatabase,
      exitCode: command.exitCode && ((result) => command.exitCode!(argv, result)),
    });
  };
}
