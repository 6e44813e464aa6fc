import { flags, optionalInt } from '../../cli/cli-args.js';
import { ConfigError, loadConfig } from '../../config.js';
import { createContainer, type Container } from '../../container.js';

type Out = { stdout: (s: string) => void; stderr: (s: string) => void };

export const MAIL_USAGE = `  mail list [--to EMAIL] [--limit N]             (development mail sink; with SMTP only the send outcome)`;

/** `slipcheck mail list`: the operator reads the development mail sink (reset links, notices). */
export const mailCommands: Record<string, (argv: string[], out: Out, env: Record<string, string | undefined>) => Promise<number>> = {
  'mail list': async (argv, out, env) => {
    let c: Container | undefined;
    try {
      const { values } = flags(argv, { to: 'string', limit: 'string' });
      const config = loadConfig({ ...env, LOG_LEVEL: env.LOG_LEVEL ?? 'warn' });
      c = await createContainer(config);
      const items = await c.mail.list({ to: values.to as string | undefined, limit: optionalInt(values, 'limit') ?? 20 });
      out.stdout(JSON.stringify(items, null, 2));
      return 0;
    } catch (e) {
      out.stderr(e instanceof ConfigError ? e.message : `Failed: ${(e as Error).message}`);
      return e instanceof ConfigError ? 78 : 1;
    } finally {
      await c?.close();
    }
  },
};
