// A payee account as the service answers it, with no imports: the dashboard (packages/web) imports this type too.

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
