import { flags, optionalInt, required } from '../../cli/cli-args.js';
import type { Container } from '../../container.js';
import { withContainer, type Env, type Out } from '../../cli/cli-runner.js';

/**
 * `slipcheck webhook ...` and `slipcheck worker`. Registered into cli.ts's extraCommands (this file
 * does not import cli.ts, so there is no import cycle).
 */
const OPERATOR = 'operator:cli';

export const WEBHOOK_USAGE = `  webhook add --shop ID --url URL [--events slip.verified,slip.duplicate,slip.failed] [--description D]
  webhook list --shop ID
  webhook update --shop ID --endpoint ID [--url URL] [--events ...] [--description D]
  webhook disable|enable|delete --shop ID --endpoint ID
  webhook test --shop ID --endpoint ID
  webhook deliveries --shop ID [--endpoint ID] [--status failed] [--limit N] [--cursor C]
  webhook delivery --shop ID --delivery ID      (one delivery with every attempt)
  webhook redeliver --shop ID --delivery ID
  webhook reveal-secret --shop ID --endpoint ID
  webhook rotate-secret --shop ID --endpoint ID [--overlap-hours N]
  worker                                        (run the outbox worker until SIGTERM; use with WORKER_MODE=off on the service)`;

type Cmd = (c: Container, argv: string[]) => Promise<unknown>;

const sub: Record<string, Cmd> = {
  add: async (c, argv) => {
    const { values } = flags(argv, { shop: 'string', url: 'string', events: 'string', description: 'string' });
    const { endpoint, secret } = await c.webhooks.addEndpoint(
      required(values, 'shop'),
      {
        url: required(values, 'url'),
        events: values.events as string | undefined,
        description: values.description as string | undefined,
      },
      OPERATOR,
    );
    return {
      ...endpoint,
      secret,
      notice: 'Use this secret to verify the X-Service-Signature header; reveal it again with webhook reveal-secret.',
    };
  },
  list: async (c, argv) => c.webhooks.list(required(flags(argv, { shop: 'string' }).values, 'shop')),
  update: async (c, argv) => {
    const { values } = flags(argv, { shop: 'string', endpoint: 'string', url: 'string', events: 'string', description: 'string' });
    return c.webhooks.update(
      required(values, 'shop'),
      required(values, 'endpoint'),
      {
        url: values.url as string | undefined,
        events: values.events as string | undefined,
        description: values.description as string | undefined,
      },
      OPERATOR,
    );
  },
  disable: async (c, argv) => {
    const v = flags(argv, { shop: 'string', endpoint: 'string' }).values;
    return c.webhooks.disable(required(v, 'shop'), required(v, 'endpoint'), OPERATOR);
  },
  enable: async (c, argv) => {
    const v = flags(argv, { shop: 'string', endpoint: 'string' }).values;
    return c.webhooks.enable(required(v, 'shop'), required(v, 'endpoint'), OPERATOR);
  },
  delete: async (c, argv) => {
    const v = flags(argv, { shop: 'string', endpoint: 'string' }).values;
    return c.webhooks.delete(required(v, 'shop'), required(v, 'endpoint'), OPERATOR);
  },
  test: async (c, argv) => {
    const v = flags(argv, { shop: 'string', endpoint: 'string' }).values;
    return c.webhooks.sendTest(required(v, 'shop'), required(v, 'endpoint'), OPERATOR);
  },
  deliveries: async (c, argv) => {
    const { values } = flags(argv, { shop: 'string', endpoint: 'string', status: 'string', limit: 'string', cursor: 'string' });
    return c.webhooks.listDeliveries(required(values, 'shop'), {
      endpointId: values.endpoint as string | undefined,
      status: values.status as string | undefined,
      limit: optionalInt(values, 'limit'),
      cursor: values.cursor as string | undefined,
    });
  },
  delivery: async (c, argv) => {
    const v = flags(argv, { shop: 'string', delivery: 'string' }).values;
    return c.webhooks.getDelivery(required(v, 'shop'), required(v, 'delivery'));
  },
  redeliver: async (c, argv) => {
    const v = flags(argv, { shop: 'string', delivery: 'string' }).values;
    return c.webhooks.redeliver(required(v, 'shop'), required(v, 'delivery'), OPERATOR);
  },
  'reveal-secret': async (c, argv) => {
    const v = flags(argv, { shop: 'string', endpoint: 'string' }).values;
    return c.webhooks.revealSecret(required(v, 'shop'), required(v, 'endpoint'), OPERATOR);
  },
  'rotate-secret': async (c, argv) => {
    const { values } = flags(argv, { shop: 'string', endpoint: 'string', 'overlap-hours': 'string' });
    return c.webhooks.rotateSecret(
      required(values, 'shop'),
      required(values, 'endpoint'),
      { overlapHours: optionalInt(values, 'overlap-hours') },
      OPERATOR,
    );
  },
};

/** Runs the container's worker until `until` resolves (SIGTERM/SIGINT in the CLI), then stops gracefully. */
export async function runWorkerUntil(c: Container, until: Promise<unknown>, log: (s: string) => void = () => undefined): Promise<void> {
  c.worker.start();
  const keepAlive = setInterval(() => undefined, 60_000); // worker timers are unref'd; this process lives for the worker
  log(`worker ${c.worker.workerId} started (kinds: ${Object.keys(c.outboxHandlers).join(', ')})`);
  await until;
  clearInterval(keepAlive);
  log('stopping: finishing running jobs');
  await c.worker.stop({ timeoutMs: c.config.WEBHOOK_TIMEOUT_MS + 2000 });
  log(`stopped ${JSON.stringify(c.worker.stats)}`);
}

export const webhookCommands: Record<string, (argv: string[], out: Out, env: Env) => Promise<number>> = {
  webhook: async (argv, out, env) => {
    const [name, ...rest] = argv;
    const cmd = name ? sub[name] : undefined;
    if (!cmd) {
      out.stderr(`Usage:\n${WEBHOOK_USAGE}`);
      return 2;
    }
    return withContainer(env, out, `Usage:\n${WEBHOOK_USAGE}`, (c) => cmd(c, rest));
  },
  worker: async (argv, out, env) => {
    if (argv.length) {
      out.stderr(`Usage:\n${WEBHOOK_USAGE}`);
      return 2;
    }
    return withContainer(
      env,
      out,
      `Usage:\n${WEBHOOK_USAGE}`,
      async (c) => {
        const stop = new Promise<void>((resolve) => {
          process.once('SIGTERM', () => resolve());
          process.once('SIGINT', () => resolve());
        });
        await runWorkerUntil(c, stop, (s) => out.stderr(s));
      },
      false,
    );
  },
};
