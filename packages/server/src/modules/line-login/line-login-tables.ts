/** A person's linked LINE user (sign-in with LINE). */
export interface LineLoginsTable {
  user_id: string;
  shop_id: string;
  line_user_id: string;
  linked_at: string;
}

export interface LineLoginCodesTable {
  code_hash: string;
  user_id: string;
  shop_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** Accepted LINE ID tokens (SHA-256), kept until they expire: each opens one session. */
export interface LineIdTokensTable {
  token_hash: string;
  expires_at: string;
}
