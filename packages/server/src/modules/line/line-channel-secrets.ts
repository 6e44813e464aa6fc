import { reencryptRows } from '../../lib/reencrypt-rows.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { LineRepo } from './line-repo.js';
import type { LineChannelsTable } from './line-tables.js';

/**
 * A channel's secret and access token sealed at rest (lib/secret-box.ts, purpose `line-channel`), each
 * bound to its row by the AAD, so a sealed value copied into another row does not open there. They
 * leave this file only towards the LINE client and the webhook signature check.
 */
export function createLineChannelSecrets(box: SecretBox) {
  const aadSecret = (id: string) => `line-channel:${id}:secret`;
  const aadToken = (id: string) => `line-channel:${id}:token`;

  return {
    seal(lineChannelId: string, secret: string, token: string): Pick<LineChannelsTable, 'secret_sealed' | 'token_sealed'> {
      return { secret_sealed: box.encrypt(secret, aadSecret(lineChannelId)), token_sealed: box.encrypt(token, aadToken(lineChannelId)) };
    },
    openSecret(row: Pick<LineChannelsTable, 'id' | 'secret_sealed'>): string {
      return box.decrypt(row.secret_sealed, aadSecret(row.id));
    },
    openToken(lineChannelId: string, tokenSealed: string): string {
      return box.decrypt(tokenSealed, aadToken(lineChannelId));
    },
    /** After a master-secret rotation (SECRET_KEY_PREVIOUS), re-seal channel secrets and tokens under the current key. */
    async reencryptAll(repo: LineRepo): Promise<number> {
      return reencryptRows(
        box,
        await repo.channels.sealedValues(),
        (r) => ({
          secret_sealed: { value: r.secret_sealed, aad: aadSecret(r.id) },
          token_sealed: { value: r.token_sealed, aad: aadToken(r.id) },
        }),
        (r, sealed) =>
          repo.channels.reseal(r.id, r.secret_sealed, { secret_sealed: sealed.secret_sealed!, token_sealed: sealed.token_sealed! }),
      );
    },
  };
}
export type LineChannelSecrets = ReturnType<typeof createLineChannelSecrets>;
