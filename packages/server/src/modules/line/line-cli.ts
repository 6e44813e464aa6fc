import type { ModuleCommand } from '../../cli/cli-command.js';
import { flags, required } from '../../cli/cli-args.js';
import type { ShopService } from '../shops/shop-service.js';
import type { LineModule } from './line-module.js';

const OPERATOR = 'operator:cli';

export const LINE_USAGE = `slipcheck line: LINE official accounts and group chats of a shop

  line link --shop ID --channel-id C --channel-secret S --access-token T   (prints the channel's webhook URL; secrets are never shown again)
  line unlink --shop ID --channel LCH_ID
  line list --shop ID                         (channels, linked groups, owner LINE users; never secrets)
  line link-code --shop ID                    (one-time code: type it in a group to link the group, or in 1:1 chat to get owner alerts)
  line unlink-group --shop ID --group LGR_ID
  line verify-webhook --shop ID --channel LCH_ID
`;

/** What the line commands use: the linking services and the shop lookup, nothing else of the container. */
export interface LineCliDeps {
  line: Pick<LineModule, 'channels' | 'groups' | 'linkCodes'>;
  shops: Pick<ShopService, 'get'>;
}
type Cmd = (deps: LineCliDeps, argv: string[]) => Promise<unknown>;

const commands: Record<string, Cmd> = {
  link: async ({ line }, argv) => {
    const { values } = flags(argv, { shop: 'string', 'channel-id': 'string', 'channel-secret': 'string', 'access-token': 'string' });
    const view = await line.channels.link(
      required(values, 'shop'),
      {
        channelId: required(values, 'channel-id'),
        channelSecret: required(values, 'channel-secret'),
        accessToken: required(values, 'access-token'),
      },
      OPERATOR,
    );
    return {
      ...view,
      notice: 'Paste webhookUrl into the LINE Developers console (Messaging API > Webhook URL) and turn "Use webhook" on.',
    };
  },
  unlink: async ({ line }, argv) => {
    const { values } = flags(argv, { shop: 'string', channel: 'string' });
    return line.channels.unlink(required(values, 'shop'), required(values, 'channel'), OPERATOR);
  },
  list: async ({ line, shops }, argv) => {
    const { values } = flags(argv, { shop: 'string' });
    const shopId = required(values, 'shop');
    await shops.get(shopId);
    return line.channels.list(shopId);
  },
  'link-code': async ({ line }, argv) => {
    const { values } = flags(argv, { shop: 'string' });
    const r = await line.linkCodes.create(required(values, 'shop'), OPERATOR);
    return {
      ...r,
      notice: 'Type this code in the LINE group (after adding the bot) or in a 1:1 chat with the official account. It works once.',
    };
  },
  'unlink-group': async ({ line }, argv) => {
    const { values } = flags(argv, { shop: 'string', group: 'string' });
    await line.groups.unlink(required(values, 'shop'), required(values, 'group'), OPERATOR);
    return { unlinked: true };
  },
  'verify-webhook': async ({ line }, argv) => {
    const { values } = flags(argv, { shop: 'string', channel: 'string' });
    return line.channels.verifyWebhook(required(values, 'shop'), required(values, 'channel'));
  },
};

/** `slipcheck line <sub> ...`: registered in cli.ts extraCommands under 'line'. */
export const lineCommand: ModuleCommand<LineCliDeps> = {
  usage: LINE_USAGE,
  precheck: ([sub]) => (!sub ? LINE_USAGE : !Object.hasOwn(commands, sub) ? `Unknown command "line ${sub}".\n\n${LINE_USAGE}` : undefined),
  run: (deps, [sub, ...rest]) => commands[sub!]!(deps, rest),
};
