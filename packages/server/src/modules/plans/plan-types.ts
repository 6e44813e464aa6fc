// A plan as the service holds it, with no imports: the dashboard (packages/web) derives its plan card type from it.

export interface Plan {
  code: string;
  name: string;
  monthlyLimit: number;
  trialDays: number;
  apiAccess: boolean;
  webhooks: boolean;
  seats: number;
  groups: number;
  messagingAccounts: number;
  allowOverage: boolean;
  freeBuffer: number;
  monthlyCap: number;
  hardBlockMultiple: number;
  priceThb: number;
  overagePriceSatang: number;
}
