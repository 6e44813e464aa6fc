import type { SecretBox } from './secret-box.js';

/** One sealed column of a row: its stored value (null = empty column) and the AAD it was sealed with. */
export interface SealedField {
  value: string | null;
  aad?: string;
}

/**
 * After a master-secret rotation (SECRET_KEY_PREVIOUS): re-seals, under the current key, every row
 * of which any sealed field was written under an older key. The caller reads the rows, names their
 * sealed fields and writes the new values (guarded by the old value, so a concurrent change wins);
 * the same loop serves every table that keeps secrets. Returns how many rows were rewritten.
 */
export async function reencryptRows<R, K extends string>(
  box: SecretBox,
  rows: R[],
  fieldsOf: (row: R) => Record<K, SealedField>,
  write: (row: R, resealed: Record<K, string | null>) => Promise<unknown>,
): Promise<number> {
  let n = 0;
  for (const row of rows) {
    const fields = fieldsOf(row);
    const entries = Object.entries(fields) as Array<[K, SealedField]>;
    if (!entries.some(([, f]) => !!f.value && box.needsReencrypt(f.value))) continue;
    const resealed = {} as Record<K, string | null>;
    for (const [k, f] of entries) resealed[k] = f.value ? box.encrypt(box.decrypt(f.value, f.aad), f.aad) : null;
    await write(row, resealed);
    n++;
  }
  return n;
}
