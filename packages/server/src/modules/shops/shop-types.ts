// A shop as the service holds it. The dashboard (packages/web) reads the shop view from the routes' generated types.

export const SHOP_STATES = ['trial', 'active', 'past_due', 'suspended'] as const;
export type ShopState = (typeof SHOP_STATES)[number];

export interface Shop {
  id: string;
  name: string;
  state: ShopState;
  planCode: string;
  chosenPlanCode: string | null;
  trialEndsAt: string | null;
  language: 'th' | 'en';
  settings: Record<string, unknown>;
  createdAt: string;
}
