import { flags, optionalInt, required } from '../../cli/cli-args.js';
import type { ModuleCommand } from '../../cli/cli-command.js';
import type { ShopService } from '../shops/shop-service.js';
import type { WebhookService } from './webhook-service.js';

/**
 * `slipcheck webhook ...`. Registered into cli.ts's extraCommands (this file does not import cli.ts,
 * so there is no import cycle). The commands see only the webhook service's methods they call.
 */
const OPERATOR = 'operator:cli';

export const WEBHOOK_USAGE = `  webhook add --shop ID --url URL [--events slip.verified,slip.duplicate,slip.failed] [--description D]
  webhook list --shop ID
  webhook update --shop ID --endpoint ID [--url URL] [--events ...] [--description D]
  webhook disable|enable|delete --shop ID --endpoint ID
  webhook test --shop ID --endpoint ID       (a sample slip.verified sent now; waits for its one attempt, at most WEBHOOK_TIMEOUT_MS:
                                             exit 0 when the receiver answered 2xx, 1 when it answered otherwise or was not reached)
  webhook deliveries --shop ID [--endpoint ID] [--status failed] [--limit N] [--cursor C]
  webhook delivery --shop ID --delivery ID      (one delivery with every attempt)
  webhook redeliver --shop ID --delivery ID
  webhook reveal-secret --shop ID --endpoint ID
  webhook rotate-secret --shop ID --endpoint ID [--overlap-hours N]`;

/** What the webhook commands use, filled by cli.ts from the container. */
export interface WebhookCliDeps {
  webhooks: Pick<
    WebhookService,
    | 'addEndpoint'
    | 'list'
    | 'update'
    | 'disable'
    | 'enable'
    | 'delete'
    | 'sendTest'
    | 'revealSecret'
    | 'listDeliveries'
    | 'getDelivery'
    | 'redeliver'
    | 'rotateSecret'
  >;
  /** The list commands look the shop up first (see `listedShop`). */
  shops: Pick<ShopService, 'get'>;
}
type Webhooks = WebhookCliDeps['webhooks'];
type Cmd = (webhooks: Webhooks, argv: string[], deps: WebhookCliDeps) => Promise<unknown>;

/**
 * As `payee list` and the other lists (README, Operator CLI): a shop that does not exist is NOT_FOUND,
 * exit 1, not an empty list that reads as "this shop has no endpoints" for a mistyped id or a CLI run
 * against the wrong database.
 */
async function listedShop(deps: WebhookCliDeps, shopId: string): Promise<string> {
  return (await deps.shops.get(shopId)).id;
}

/** The commands that name one endpoint (or one delivery) of a shop and nothing else. */
const onEndpoint =
  (run: (webhooks: Webhooks, shopId: string, endpointId: string) => Promise<unknown>): Cmd =>
  (webhooks, argv) => {
    const v = flags(argv, { shop: 'string', endpoint: 'string' }).values;
    return run(webhooks, required(v, 'shop'), required(v, 'endpoint'));
  };
const onDelivery =
  (run: (webhooks: Webhooks, shopId: string, deliveryId: string) => Promise<unknown>): Cmd =>
  (webhooks, argv) => {
    const v = flags(argv, { shop: 'string', delivery: 'string' }).values;
    return run(webhooks, required(v, 'shop'), required(v, 'delivery'));
  };

const sub: Record<string, Cmd> = {
  add: async (webhooks, argv) => {
    const { values } = flags(argv, { shop: 'string', url: 'string', events: 'string', description: 'string' });
    const { endpoint, secret } = await webhooks.addEndpoint(
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
  list: async (webhooks, argv, deps) => webhooks.list(await listedShop(deps, required(flags(argv, { shop: 'string' }).values, 'shop'))),
  update: async (webhooks, argv) => {
    const { values } = flags(argv, { shop: 'string', endpoint: 'string', url: 'string', events: 'string', description: 'string' });
    return webhooks.update(
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
  disable: onEndpoint((webhooks, shopId, endpointId) => webhooks.disable(shopId, endpointId, OPERATOR)),
  enable: onEndpoint((webhooks, shopId, endpointId) => webhooks.enable(shopId, endpointId, OPERATOR)),
  delete: onEndpoint((webhooks, shopId, endpointId) => webhooks.delete(shopId, endpointId, OPERATOR)),
  test: onEndpoint((webhooks, shopId, endpointId) => webhooks.sendTest(shopId, endpointId, OPERATOR)),
  'reveal-secret': onEndpoint((webhooks, shopId, endpointId) => webhooks.revealSecret(shopId, endpointId, OPERATOR)),
  deliveries: async (webhooks, argv, deps) => {
    const { values } = flags(argv, { shop: 'string', endpoint: 'string', status: 'string', limit: 'string', cursor: 'string' });
    const limit = optionalInt(values, 'limit', { min: 1, max: 100 }); // a usage error before any lookup
    return webhooks.listDeliveries(await listedShop(deps, required(values, 'shop')), {
      endpointId: values.endpoint as string | undefined,
      status: values.status as string | undefined,
      limit,
      cursor: values.cursor as string | undefined,
    });
  },
  delivery: onDelivery((webhooks, shopId, deliveryId) => webhooks.getDelivery(shopId, deliveryId)),
  redeliver: onDelivery((webhooks, shopId, deliveryId) => webhooks.redeliver(shopId, deliveryId, OPERATOR)),
  'rotate-secret': async (webhooks, argv) => {
    const { values } = flags(argv, { shop: 'string', endpoint: 'string', 'overlap-hours': 'string' });
    return webhooks.rotateSecret(
      required(values, 'shop'),
      required(values, 'endpoint'),
      { overlapHours: optionalInt(values, 'overlap-hours') },
      OPERATOR,
    );
  },
};

export const webhookCommand: ModuleCommand<WebhookCliDeps> = {
  usage: `Usage:\n${WEBHOOK_USAGE}`,
  precheck: ([name]) => (name && Object.hasOwn(sub, name) ? undefined : `Usage:\n${WEBHOOK_USAGE}`),
  run: (deps, [name, ...rest]) => sub[name!]!(deps.webhooks, rest, deps),
  // `webhook test` is the one whose answer can be "sent, and refused": its delivery is `failed` when the
  // receiver answered anything but 2xx, timed out or could not be reached. Exit 1 then, as `checker check`
  // does for a provider that is not healthy, so `$?` never reads "the endpoint works" when it does not.
  exitCode: ([name], result) => (name === 'test' && (result as { status?: string } | null)?.status !== 'delivered' ? 1 : 0),
};
