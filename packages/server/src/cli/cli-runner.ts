import { ConfigError, loadConfig } from '../config.js';
import { createContainer, type Container } from '../container.js';
import { AppError } from '../errors.js';
import { UsageError } from './cli-args.js';

export type Out = { stdout: (s: string) => void; stderr: (s: string) => void };
export type Env = Record<string, string | undefined>;
export type CliCommand = (argv: string[], out: Out, env: Env) => Promise<number>;

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
): Promise<number> {
  let c: Container | undefined;
  try {
    c = await createContainer(loadConfig({ ...env, LOG_LEVEL: env.LOG_LEVEL ?? 'warn' }));
    const result = await fn(c);
    if (print) out.stdout(JSON.stringify(result, null, 2));
    return 0;
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
