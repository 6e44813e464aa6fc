import { Type } from 'typebox';
import { Nullable } from '../../http/common-schemas.js';

/** A webhook endpoint as the owner's webhook screen shows it (the secret only as a hint). */
export const EndpointSchema = Type.Object({
  id: Type.String(),
  url: Type.String(),
  description: Nullable(Type.String()),
  events: Type.Array(Type.String()),
  status: Type.Union([Type.Literal('enabled'), Type.Literal('disabled')]),
  disabledReason: Nullable(Type.String()),
  secretHint: Type.String(),
  previousSecretExpiresAt: Nullable(Type.String()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

/** A delivery as the deliveries screen lists it; `attempt` is the X-Service-Attempt of its latest attempt. */
export const DeliverySchema = Type.Object({
  id: Type.String(),
  endpointId: Type.String(),
  eventId: Type.String(),
  event: Type.String(),
  transactionId: Nullable(Type.String()),
  test: Type.Boolean(),
  status: Type.String(),
  attempts: Type.Integer(),
  attempt: Nullable(Type.Integer({ minimum: 1 })),
  maxAttempts: Type.Integer({ minimum: 1 }),
  lastStatusCode: Nullable(Type.Integer()),
  lastError: Nullable(Type.String()),
  lastDurationMs: Nullable(Type.Integer()),
  nextAttemptAt: Nullable(Type.String()),
  deliveredAt: Nullable(Type.String()),
  createdAt: Type.String(),
});
export const AttemptSchema = Type.Object({
  id: Type.String(),
  attempt: Type.Integer({ minimum: 1 }),
  manual: Type.Boolean(),
  status: Type.String(),
  responseCode: Nullable(Type.Integer()),
  durationMs: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  nextAttemptAt: Nullable(Type.String()),
  startedAt: Type.String(),
  finishedAt: Nullable(Type.String()),
});
export const DeliveryDetailSchema = Type.Object({
  ...DeliverySchema.properties,
  payload: Type.Unknown(),
  attempts: Type.Array(AttemptSchema),
});
