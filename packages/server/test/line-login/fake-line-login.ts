import { createSandboxLine, type IdTokenClaims } from '@slipcheck/sandbox-line';

/**
 * LINE Login for the tests: the shipped sandbox LINE platform (packages/sandbox-line) with one login
 * channel. Its ID tokens are HS256 JWTs signed with the channel secret, as LINE signs them; its verify
 * endpoint refuses a forged, expired, other-channel or other-nonce token with LINE's error body.
 * `state.lenient` makes verify answer 200 for any well-signed token, to prove the service checks
 * `aud`, `iss`, `exp` and `nonce` itself instead of trusting whatever the endpoint says.
 */
export type { IdTokenClaims };

export async function startFakeLineLogin(opts: { channelId: string; channelSecret: string; now: () => Date; callbackUrls?: string[] }) {
  const line = await createSandboxLine({
    now: opts.now,
    loginChannels: [{ channelId: opts.channelId, channelSecret: opts.channelSecret, callbackUrls: opts.callbackUrls ?? [] }],
  });
  return {
    url: line.url,
    state: line.login,
    issue: (c: IdTokenClaims) => line.issueIdToken(c, opts.channelId),
    lineUserId: line.lineUserId,
    close: line.close,
  };
}
export type FakeLineLogin = Awaited<ReturnType<typeof startFakeLineLogin>>;
