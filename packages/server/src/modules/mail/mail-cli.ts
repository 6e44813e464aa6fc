import { flags, optionalInt } from '../../cli/cli-args.js';
import { withContainer, type CliCommand } from '../../cli/cli-runner.js';

export const MAIL_USAGE = `  mail list [--to EMAIL] [--limit N]             (development mail sink; with SMTP only the send outcome)`;

/** `slipcheck mail list`: the operator reads the development mail sink (reset links, notices). */
export const mailCommands: Record<string, CliCommand> = {
  'mail list': async (argv, out, env) =>
    withContainer(env, out, MAIL_USAGE, async (c) => {
      const { values } = flags(argv, { to: 'string', limit: 'string' });
      return c.mail.list({ to: values.to as string | undefined, limit: optionalInt(values, 'limit') ?? 20 });
    }),
};
