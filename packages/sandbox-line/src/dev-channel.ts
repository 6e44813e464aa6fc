/**
 * The LINE Login channel (with its LIFF app) `npm start` gives the sandbox LINE platform. The service's
 * configuration carries the same values as its development defaults (packages/server/src/config.ts;
 * a test holds the two equal): a sandbox credential, worthless anywhere else.
 */
export const SANDBOX_LOGIN_CHANNEL = {
  channelId: '2000000001',
  channelSecret: 'sandbox0line0login0channel0secret',
  liffId: '2000000001-sandbox',
} as const;
