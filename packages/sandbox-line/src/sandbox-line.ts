import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyServerOptions } from 'fastify';
import { registerLineLogin, signIdToken, type IdTokenClaims, type LoginChannel, type LoginState } from './line-login.js';
import { channelToken, replyToken as newReplyToken, userId as newUserId } from './line-ids.js';
import { registerMessagingApi } from './messaging-api.js';
import { createPlatformState, type Channel, type Forced, type Route } from './platform-state.js';
import { registerSimulator, type SimulatorOptions } from './simulator-routes.js';

export interface SandboxLineOptions {
  port?: number;
  host?: string;
  logger?: FastifyServerOptions['logger'];
  /** Keep channels here so a restarted sandbox still knows the tokens the service holds; absent = memory only. */
  dataDir?: string;
  /** LINE Login channels (the mini-app's LIFF app lives on one). */
  loginChannels?: LoginChannel[];
  /** Clock of ID-token expiry and authorization codes (tests pass the service's clock). */
  now?: () => Date;
  replyTokenTtlMs?: number;
  /** The chat simulator page and its API (`/` and `/sandbox/...`). */
  simulator?: SimulatorOptions;
}

/**
 * The sandbox LINE platform: LINE's HTTP APIs the service uses, on one port (api.line.me,
 * api-data.line.me and access.line.me are all served here), strict like LINE, plus the chat simulator.
 */
export async function createSandboxLine(opts: SandboxLineOptions = {}) {
  const app = Fastify({ logger: opts.logger ?? false, forceCloseConnections: true, bodyLimit: 12 * 1024 * 1024 });
  // Every body stays raw bytes: LINE answers a malformed body with its own error, and the consent form is urlencoded.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  const s = createPlatformState({ dataDir: opts.dataDir, replyTokenTtlMs: opts.replyTokenTtlMs });
  const now = opts.now ?? (() => new Date());
  const loginChannels = new Map((opts.loginChannels ?? []).map((c) => [c.channelId, c]));
  const login: LoginState = { lenient: false, authorizeAs: null, lastAuthorize: null, verifyCalls: 0 };
  const people = new Map<string, { sub: string; name: string }>();

  app.setNotFoundHandler((_req, reply) => reply.code(404).send({ message: 'Not found' }));
  app.get('/health', async () => ({ status: 'ok' }));
  registerMessagingApi(app, s);
  registerLineLogin(app, { channels: loginChannels, state: login, now, people: () => [...people.values()] });
  if (opts.simulator) registerSimulator(app, s, { ...opts.simulator, people, loginChannels });

  await app.listen({ port: opts.port ?? 0, host: opts.host ?? '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (opts.port ?? 0);
  const host = opts.host && opts.host !== '0.0.0.0' && opts.host !== '::' ? opts.host : '127.0.0.1';
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  let seq = s.channels.size;
  return {
    url,
    port,
    replies: s.replies,
    pushes: s.pushes,
    hits: s.hits,
    rejected: s.rejected,
    pushAttempts: s.pushAttempts,
    get externalHits() {
      return s.externalHits;
    },
    /** LINE Login's side: state knobs for tests (who signs in, lenient verify). */
    login,
    /** A new Messaging API channel (official account), as the LINE Developers console makes one. */
    addChannel(c: Partial<Omit<Channel, 'usage'>> = {}): Channel {
      const n = ++seq;
      const ch: Channel = {
        channelId: c.channelId ?? String(2_000_100_000 + n),
        token: c.token ?? channelToken(),
        secret: c.secret ?? randomBytes(16).toString('hex'),
        botUserId: c.botUserId ?? newUserId(),
        basicId: c.basicId ?? `@${String(100 + n)}sbx`,
        displayName: c.displayName ?? `Shop bot ${n}`,
        webhookUrl: c.webhookUrl,
        monthlyLimit: c.monthlyLimit ?? null,
        usage: 0,
      };
      s.channels.set(ch.channelId, ch);
      s.save();
      return ch;
    },
    channel: (channelId: string) => s.channels.get(channelId),
    addLoginChannel(c: LoginChannel) {
      loginChannels.set(c.channelId, c);
    },
    /** Message content LINE holds for an image message (what the service downloads). */
    setContent(messageId: string, data: Buffer, type = 'image/jpeg') {
      s.contents.set(messageId, { data, type });
    },
    setContentStatus(messageId: string, status: number) {
      s.contents.set(messageId, { status });
    },
    /** The next calls of `route` get these answers instead (in order). */
    fail(route: Route, ...f: Forced[]) {
      s.forced[route].push(...f);
    },
    /** A reply token as if a webhook event of this chat had carried it (for calls made without a webhook). */
    issueReplyToken(ch: Pick<Channel, 'channelId'>, chatId: string): string {
      const t = newReplyToken();
      s.replyTokens.set(t, { channelId: ch.channelId, chatId, expiresAt: Date.now() + s.replyTokenTtlMs, used: false });
      return t;
    },
    expireReplyToken(t: string) {
      const r = s.replyTokens.get(t);
      if (r) r.expiresAt = 0;
      else s.replyTokens.set(t, { channelId: '', chatId: '', expiresAt: 0, used: false });
    },
    /** LINE's side of a webhook: sign the body with the channel secret and POST it (reply tokens inside become valid). */
    deliver: s.deliverRaw,
    waitFor: s.waitFor,
    sentTo: (chatId: string) => s.pushes.filter((p) => p.body.to === chatId),
    reset: s.reset,
    /** An ID token as LINE issues it for a login channel (HS256 with the channel secret). */
    issueIdToken(claims: IdTokenClaims, channelId = claims.aud): string {
      const ch = loginChannels.get(channelId) ?? [...loginChannels.values()][0];
      if (!ch) throw new Error('no LINE Login channel');
      return signIdToken(ch.channelSecret, claims);
    },
    lineUserId: newUserId,
    close: () => app.close(),
  };
}
export type SandboxLine = Awaited<ReturnType<typeof createSandboxLine>>;
