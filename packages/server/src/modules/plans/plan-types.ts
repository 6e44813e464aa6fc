// A plan as the service holds it. The dashboard (packages/web) reads its plan shapes from the routes' generated types.

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
