import type { Container } from '../container.js';
import { AppError } from '../errors.js';
import { flags, oneOf, optionalInt, required, UsageError } from './cli-args.js';
import { SHOP_STATES } from '../modules/shops/shop-service.js';
import { PAYEE_KINDS, PROXY_TYPES } from '../modules/payees/payee-service.js';
import { bindCommand, withContainer, type CliCommand, type Out } from './cli-runner.js';
import { runDecodeCommand, runReadCommand } from '../modules/slip-qr/slip-qr-command.js';
import { runDemo } from './demo-command.js';
import { NO_USAGE, usageByKey } from '../modules/api-keys/api-key-usage.js';
import { periodStart } from '../lib/period.js';
import { lineCommand } from '../modules/line/line-cli.js';
import { webhookCommand, WEBHOOK_USAGE } from '../modules/webhooks/webhooks-cli.js';
import { parkedCommand, workerCommand, WORKER_USAGE } from '../outbox/outbox-cli.js';
import { listMail, MAIL_USAGE } from '../modules/mail/mail-cli.js';
import { exportCommand, REPORTS_USAGE } from '../modules/reports/reports-cli.js';
import { checkerCommands, CHECKER_USAGE } from '../modules/checker/checker-cli.js';

const OPERATOR = 'operator:cli';

const USAGE = `slipcheck: operator CLI (JSON on stdout, errors on stderr). Reads the same environment as the service.

  shop create --name N [--plan CODE] [--state trial|active]
  shop set-plan --shop ID --plan CODE        (record that payment happened)
  shop set-state --shop ID --state trial|active|past_due|suspended
  shop show --shop ID
  shop find --email ADDRESS                  (the shop of an owner or staff e-mail, case-insensitive)
  plan list
  payee add --shop ID --bank 004 --account 1234567890 --holder NAME [--kind BANK|PROMPTPAY] [--proxy-type PHONE|NATID|EWALLET] [--primary]
  payee list --shop ID
  key create --shop ID --env live|test [--scopes verify,read] [--name N]   (scopes default to verify alone)
  key revoke --key-id ID | key rotate --key-id ID | key list --shop ID
  quota show --shop ID
  quota adjust --shop ID [--used N] [--test-used N]
  audit list --shop ID
  line link|unlink|list|link-code|unlink-group|verify-webhook ...   (slipcheck line: details)
${WEBHOOK_USAGE}
${WORKER_USAGE}
${MAIL_USAGE}
${REPORTS_USAGE}
${CHECKER_USAGE}
  demo [--out FILE]                          (development: a demo shop, keys, a sandbox slip and the curl to check it)
  secrets reencrypt                          (after a SECRET_KEY rotation: re-seal stored secrets)
  migrate
  decode FILE...                             (decode slip QR codes with the service's decoder)
  read FILE...                               (what the service reads from a slip picture: QR, printed amount, confidence, ms)
`;

type Handler = (container: Container, argv: string[]) => Promise<unknown>;

const commands: Record<string, Handler> = {
  'shop create': async (container, argv) => {
    const { values } = flags(argv, { name: 'string', plan: 'string', state: 'string' });
    return container.shops.create(
      {
        name: required(values, 'name'),
        planCode: values.plan as string | undefined,
        state: oneOf(values, 'state', ['trial', 'active']) as never,
      },
      OPERATOR,
    );
  },
  'shop set-plan': async (container, argv) => {
    const { values } = flags(argv, { shop: 'string', plan: 'string' });
    return container.shops.setPlan(required(values, 'shop'), required(values, 'plan'), OPERATOR);
  },
  'shop set-state': async (container, argv) => {
    const { values } = flags(argv, { shop: 'string', state: 'string' });
    const state = oneOf(values, 'state', SHOP_STATES) ?? required(values, 'state');
    return container.shops.setState(required(values, 'shop'), state as never, OPERATOR);
  },
  'shop show': async (container, argv) => {
    const { values } = flags(argv, { shop: 'string' });
    const shop = await container.shops.get(required(values, 'shop'));
    const plan = await container.plans.get(shop.planCode);
    return {
      ...shop,
      plan,
      quota: await container.quota.snapshot(shop, plan),
      testQuota: await container.quota.testSnapshot(shop.id),
      payeeAccounts: await container.payees.list(shop.id),
    };
  },
  // Owners know their e-mail, not their shop id: support starts from the address they write from.
  'shop find': async (container, argv) => {
    const { values } = flags(argv, { email: 'string' });
    const email = required(values, 'email').trim().toLowerCase();
    const rows = [];
    for (const person of await container.accounts.findByEmail(email)) {
      const shop = await container.shops.get(person.shopId).catch(() => null); // an erased shop is not an answer
      if (shop)
        rows.push({
          shopId: shop.id,
          shopName: shop.name,
          planCode: shop.planCode,
          state: shop.state,
          userId: person.id,
          email: person.email,
          role: person.role,
        });
    }
    // A miss, not a wrong command line: exit 1 like `shop show` of an unknown id (2 would tell a script to fix its arguments).
    if (!rows.length) throw new AppError('NOT_FOUND', 404, `No shop has a person with the e-mail ${email}.`);
    return rows;
  },
  'plan list': async (container) => container.plans.list(),
  'payee add': async (container, argv) => {
    const { values } = flags(argv, {
      shop: 'string',
      bank: 'string',
      account: 'string',
      holder: 'string',
      kind: 'string',
      'proxy-type': 'string',
      primary: 'boolean',
    });
    const shopId = required(values, 'shop');
    await container.shops.get(shopId);
    return container.payees.add(
      shopId,
      {
        bankCode: (values.bank as string) ?? '',
        accountNumber: required(values, 'account'),
        holder: required(values, 'holder'),
        kind: oneOf(values, 'kind', PAYEE_KINDS),
        proxyType: oneOf(values, 'proxy-type', PROXY_TYPES),
        isPrimary: !!values.primary,
      },
      OPERATOR,
    );
  },
  // List commands look the shop up first (NOT_FOUND, exit 1, as `shop show`): an empty list for a
  // mistyped id, or for a CLI run against the wrong DATA_DIR, read as "this shop has none".
  'payee list': async (container, argv) => {
    const { values } = flags(argv, { shop: 'string' });
    const shop = await container.shops.get(required(values, 'shop'));
    return container.payees.list(shop.id);
  },
  'key create': async (container, argv) => {
    const { values } = flags(argv, { shop: 'string', env: 'string', scopes: 'string', name: 'string' });
    const { key, view } = await container.apiKeys.create(
      required(values, 'shop'),
      {
        environment: (oneOf(values, 'env', ['live', 'test']) ?? required(values, 'env')) as never,
        scopes: values.scopes as string | undefined,
        name: values.name as string | undefined,
      },
      OPERATOR,
    );
    return { ...view, key, notice: 'The full key is shown only this once; store it now.' };
  },
  'key revoke': async (container, argv) => {
    const { values } = flags(argv, { 'key-id': 'string' });
    return container.apiKeys.revoke(required(values, 'key-id'), OPERATOR);
  },
  'key rotate': async (container, argv) => {
    const { values } = flags(argv, { 'key-id': 'string' });
    const { key, view } = await container.apiKeys.rotate(required(values, 'key-id'), OPERATOR);
    return { ...view, key, notice: 'The old key no longer works. The full new key is shown only this once.' };
  },
  'key list': async (container, argv) => {
    const { values } = flags(argv, { shop: 'string' });
    const shopId = (await container.shops.get(required(values, 'shop'))).id;
    const usage = await usageByKey(
      container.transactions,
      shopId,
      periodStart(container.clock.now(), container.config.TIME_ZONE).toISOString(),
    );
    return (await container.apiKeys.list(shopId)).map((k) => ({ ...k, usage: usage.get(k.id) ?? NO_USAGE }));
  },
  'quota show': async (container, argv) => {
    const { values } = flags(argv, { shop: 'string' });
    const shop = await container.shops.get(required(values, 'shop'));
    const plan = await container.plans.get(shop.planCode);
    return { quota: await container.quota.snapshot(shop, plan), testQuota: await container.quota.testSnapshot(shop.id) };
  },
  'quota adjust': async (container, argv) => {
    const { values } = flags(argv, { shop: 'string', used: 'string', 'test-used': 'string' });
    const shopId = required(values, 'shop');
    const used = optionalInt(values, 'used');
    const testUsed = optionalInt(values, 'test-used');
    if (used === undefined && testUsed === undefined) throw new UsageError('give --used and/or --test-used');
    const shop = await container.shops.get(shopId);
    await container.quota.adjust(shopId, { used, testUsed }, OPERATOR);
    const plan = await container.plans.get(shop.planCode);
    return { quota: await container.quota.snapshot(shop, plan), testQuota: await container.quota.testSnapshot(shop.id) };
  },
  'audit list': async (container, argv) => {
    const { values } = flags(argv, { shop: 'string' });
    const shop = await container.shops.get(required(values, 'shop'));
    return container.audit.list(shop.id);
  },
  'mail list': async (container, argv) => listMail({ mail: container.mail }, argv),
  'secrets reencrypt': async (container) => container.reencryptSecrets(),
  migrate: async () => ({ migrated: true }),
};

/** The commands above that take no options or arguments (each of the others parses its own with `flags`). */
const NO_ARGUMENTS = new Set(['plan list', 'secrets reencrypt', 'migrate']);

/** Extra commands registered by modules (decode, worker, webhook, line, mail...). */
export const extraCommands: Record<string, CliCommand> = {};
// Decoding needs no database: it is the support tool for "why did this slip not read?".
extraCommands.decode = async (argv, out) => {
  if (!argv.length) {
    out.stderr('Usage: slipcheck decode FILE...');
    return 2;
  }
  return runDecodeCommand(argv, out.stdout);
};
// Reading too: an operator looks into a disputed (edited?) slip without a database.
extraCommands.read = async (argv, out) => {
  if (!argv.length) {
    out.stderr('Usage: slipcheck read FILE...');
    return 2;
  }
  return runReadCommand(argv, out.stdout);
};
// demo prints JSON on stdout and the curl command as plain text on stderr: inside a JSON string its
// quotes came out as \" and the pasted line answered 401.
extraCommands.demo = async (argv, out, env) =>
  withContainer(
    env,
    out,
    USAGE,
    async (container) => {
      const { values } = flags(argv, { out: 'string' });
      const demo = await runDemo(
        { config: container.config, shops: container.shops, payees: container.payees, apiKeys: container.apiKeys, line: container.line },
        { out: values.out as string | undefined },
      );
      out.stdout(JSON.stringify(demo, null, 2));
      out.stderr(`\nCheck the slip (paste this line into a shell):\n\n${demo.try}\n`);
      if (demo.line?.simulator)
        out.stderr(
          `\nOr in LINE: open the chat simulator at ${demo.line.simulator} and send the slip in the 1:1 chat; to link the group, type ${demo.line.groupLinkCode} in the group chat first.\n`,
        );
      else if (demo.line?.error) out.stderr(`\n${demo.line.error}\n`);
    },
    false,
  );
// Module commands declare what they use; the container stays here (as in http/app.ts for routes).
extraCommands.line = bindCommand(lineCommand, (c) => ({ line: c.line, shops: c.shops }));
extraCommands.webhook = bindCommand(webhookCommand, (c) => ({ webhooks: c.webhooks, shops: c.shops }));
extraCommands.worker = bindCommand(workerCommand, (c) => ({
  worker: c.worker,
  outboxHandlers: c.outboxHandlers,
  config: { WEBHOOK_TIMEOUT_MS: c.config.WEBHOOK_TIMEOUT_MS },
}));
extraCommands['outbox failed'] = bindCommand(parkedCommand, (c) => ({ db: c.db }));
extraCommands['transactions export'] = bindCommand(exportCommand, (c) => ({ reports: c.reports, timeZone: c.config.TIME_ZONE }));
Object.assign(extraCommands, checkerCommands);

export async function runCli(
  argv: string[],
  out: Out = { stdout: (s) => process.stdout.write(s + '\n'), stderr: (s) => process.stderr.write(s + '\n') },
  env = process.env,
): Promise<number> {
  // -h/--help anywhere (`slipcheck -h`, `slipcheck shop --help`) asks for help, never "Unknown command".
  // Options after `--` are values, not requests for help.
  const options = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
  if (!argv.length || argv[0] === 'help' || options.includes('--help') || options.includes('-h')) {
    out.stdout(USAGE);
    return argv.length ? 0 : 2;
  }
  const two = argv.slice(0, 2).join(' ');
  const name = commands[two] ? two : commands[argv[0]] ? argv[0] : null;
  if (!name) {
    const extra = extraCommands[two] ? two : extraCommands[argv[0]] ? argv[0] : null;
    if (extra) return extraCommands[extra](argv.slice(extra.split(' ').length), out, env);
    out.stderr(`Unknown command "${argv.join(' ')}".\n\n${USAGE}`);
    return 2;
  }
  const rest = argv.slice(name.split(' ').length);
  // Checked before the container: it migrates the database for `migrate`, and `secrets reencrypt`
  // re-seals every secret. Both ran on `--dry-run`, which they ignored (like any other word) with exit 0.
  if (NO_ARGUMENTS.has(name) && rest.length) {
    out.stderr(`Usage error: ${name} takes no options or arguments (got ${rest.join(' ')})\n\n${USAGE}`);
    return 2;
  }
  return withContainer(env, out, USAGE, (container) => commands[name](container, rest), true, {
    createsDatabase: name === 'migrate',
  });
}
