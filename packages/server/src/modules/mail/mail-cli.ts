import { flags, optionalInt } from '../../cli/cli-args.js';
import type { MailService } from './mail-service.js';

export const MAIL_USAGE = `  mail list [--to EMAIL] [--limit N]             (development mail sink; with SMTP only the send outcome)`;

/** `slipcheck mail list`: the operator reads the development mail sink (reset links, notices). */
export async function listMail(deps: { mail: Pick<MailService, 'list'> }, argv: string[]) {
  const { values } = flags(argv, { to: 'string', limit: 'string' });
  return deps.mail.list({ to: values.to as string | undefined, limit: optionalInt(values, 'limit', { min: 1, max: 500 }) ?? 20 });
}
