import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import type { ApiKeyService } from '../modules/api-keys/api-key-service.js';
import type { LineModule } from '../modules/line/line-module.js';
import type { PayeeService } from '../modules/payees/payee-service.js';
import type { ShopService } from '../modules/shops/shop-service.js';
import { AppError } from '../errors.js';

const DEMO_ACCOUNT = '1234566609';

/**
 * `slipcheck demo`: everything a new integrator needs to see one slip checked end to end, in one
 * command: a shop on a paid plan with a payee account, a live and a test key, a transfer registered
 * at the sandbox bank paying that account, its slip image saved to a file, and the curl line to run.
 * Development only: it needs the sandbox bank that `npm start` runs beside the service.
 */
export interface DemoDeps {
  config: Pick<
    Config,
    | 'CHECKER_URL'
    | 'SANDBOX_PORT'
    | 'NODE_ENV'
    | 'PUBLIC_URL'
    | 'HOST'
    | 'PORT'
    | 'SANDBOX_LINE_PORT'
    | 'SANDBOX_LINE_AUTOSTART'
    | 'LINE_API_BASE_URL'
  >;
  shops: Pick<ShopService, 'create'>;
  payees: Pick<PayeeService, 'add'>;
  apiKeys: Pick<ApiKeyService, 'create'>;
  line?: Pick<LineModule, 'channels' | 'linkCodes'>;
}

export async function runDemo(deps: DemoDeps, opts: { out?: string } = {}) {
  const { config, shops, payees, apiKeys } = deps;
  const sandbox = config.CHECKER_URL.split(',')[0] || `http://127.0.0.1:${config.SANDBOX_PORT}`;
  if (config.NODE_ENV === 'production') throw new AppError('DEMO_DISABLED', 400, 'demo is for development; production has no sandbox bank');
  const shop = await shops.create({ name: 'ร้านตัวอย่าง (demo)', planCode: 'BUSINESS' }, 'operator:cli');
  await payees.add(shop.id, { bankCode: '004', accountNumber: DEMO_ACCOUNT, holder: 'ร้านตัวอย่าง' }, 'operator:cli');
  const live = await apiKeys.create(shop.id, { environment: 'live', scopes: 'verify,read', name: 'demo live' }, 'operator:cli');
  const test = await apiKeys.create(shop.id, { environment: 'test', scopes: 'verify,read', name: 'demo test' }, 'operator:cli');

  let transfer: { transRef: string };
  try {
    const r = await fetch(`${sandbox}/transfers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      signal: AbortSignal.timeout(5000),
      body: JSON.stringify({
        sendingBank: '014',
        amount: 120,
        sender: { name: 'นาย สมชาย ใจดี', nameEn: 'MR. SOMCHAI JAIDEE', account: '4081234567' },
        receiver: { name: 'ร้านตัวอย่าง', account: DEMO_ACCOUNT, bankCode: '004' },
      }),
    });
    if (r.status !== 201) throw new Error(`status ${r.status}`);
    transfer = (await r.json()) as { transRef: string };
  } catch (e) {
    throw new AppError(
      'SANDBOX_UNREACHABLE',
      400,
      `The sandbox bank at ${sandbox} did not answer (${(e as Error).message}); start the service with \`npm start\` first`,
    );
  }
  const image = Buffer.from(await (await fetch(`${sandbox}/transfers/${transfer.transRef}/slip.png`)).arrayBuffer());
  const file = path.resolve(opts.out ?? 'demo-slip.png');
  fs.writeFileSync(file, image);
  const base = config.PUBLIC_URL || `http://${config.HOST}:${config.PORT}`;
  const line = deps.line ? await linkSandboxLine(deps as DemoDeps & { line: NonNullable<DemoDeps['line']> }, shop.id, base) : undefined;
  return {
    shopId: shop.id,
    liveKey: live.key,
    testKey: test.key,
    transRef: transfer.transRef,
    slipFile: file,
    // Single quotes: zsh would glob the `?` of a bare URL, and a path may hold spaces.
    try: `curl -s ${shellQuote(`${base}/api/v1/verify?amount=120`)} -H ${shellQuote(`Authorization: Bearer ${live.key}`)} -H 'Content-Type: application/octet-stream' --data-binary @${shellQuote(file)}`,
    ...(line ? { line } : {}),
    notice:
      'Keys are shown only this once. Send the same file twice to see cached=true; the sandbox renders other variants at /transfers/<transRef>/slip.jpg?variant=camera12mp.',
  };
}

/**
 * The demo shop's LINE official account on the sandbox LINE platform (`npm start` runs it): a channel
 * made there as the LINE Developers console would, linked to the shop through the service's own
 * linking (which asks the platform for the bot's info at LINE_API_BASE_URL), its webhook URL set, and a
 * one-time code to type in the simulator's group. Only when the service's LINE settings point at the
 * sandbox: a demo never touches a real LINE channel. A sandbox that does not answer is reported, not fatal.
 */
async function linkSandboxLine(deps: DemoDeps & { line: NonNullable<DemoDeps['line']> }, shopId: string, base: string) {
  const { config, line } = deps;
  const sandbox = `http://127.0.0.1:${config.SANDBOX_LINE_PORT}`;
  if (!config.SANDBOX_LINE_AUTOSTART || config.LINE_API_BASE_URL.replace(/\/+$/, '') !== sandbox) return undefined;
  try {
    const res = await fetch(`${sandbox}/sandbox/channels`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ displayName: 'ร้านตัวอย่าง' }),
      signal: AbortSignal.timeout(5000),
    });
    if (res.status !== 201) throw new Error(`status ${res.status}`);
    const ch = (await res.json()) as { channelId: string; secret: string; token: string };
    const view = await line.channels.link(
      shopId,
      { channelId: ch.channelId, channelSecret: ch.secret, accessToken: ch.token },
      'operator:cli',
    );
    const webhookUrl = `${base}${view.webhookPath}`;
    const patched = await fetch(`${sandbox}/sandbox/channels/${ch.channelId}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ webhookUrl }),
      signal: AbortSignal.timeout(5000),
    });
    if (!patched.ok) throw new Error(`status ${patched.status}`);
    const { code } = await line.linkCodes.create(shopId, 'operator:cli');
    return { simulator: `${sandbox}/`, channelId: ch.channelId, webhookUrl, groupLinkCode: code };
  } catch (e) {
    return {
      simulator: null,
      error: `The sandbox LINE platform at ${sandbox} did not answer (${(e as Error).message}); start the service with \`npm start\``,
    };
  }
}

/** POSIX single-quoting: safe to paste into sh, bash and zsh. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
