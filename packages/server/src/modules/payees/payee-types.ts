// A payee account as the service answers it. The dashboard (packages/web) reads it from the routes' generated types.

/** The public shape: only the last 4 characters of the number ever leave the service. */
export interface PayeeAccount {
  id: string;
  bankCode: string;
  kind: string;
  proxyType: string | null;
  holder: string;
  accountLast4: string;
  isPrimary: boolean;
  status: string;
  createdAt: string;
}
