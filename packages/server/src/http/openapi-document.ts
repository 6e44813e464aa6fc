/**
 * What the route schemas cannot say, added to the generated OpenAPI document (@fastify/swagger's
 * transformObject, so /api/v1/openapi.json and the docs page show the same): the raw image body of
 * POST /verify, the headers every answer carries, the refusals any route can give (405, 414, 503), the
 * outgoing webhooks and `security: []` on health. The contract test checks real answers against it.
 */
import { maxHeaderSize } from 'node:http';
import { WEBHOOK_EVENT_KINDS } from '../modules/webhooks/webhook-events.js';
import { STATUSES, SOURCES } from '../modules/transactions/transaction-record.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const int = { type: 'integer' };
const header = (description: string, schema: Json = { type: 'string' }, required = false) => ({ description, required, schema });

export const RESPONSE_HEADERS = {
  'X-Request-Id': header(
    'Id of this request (yours when you sent a sane X-Request-Id, else req_...); quote it to support',
    { type: 'string' },
    true,
  ),
  'X-Service-Quota-Limit': header('Verifications in this monthly period (answers to a valid API key)', int),
  'X-Service-Quota-Used': header('Verifications used this period', int),
  'X-Service-Quota-Remaining': header('Verifications left this period', int),
  'X-Service-Quota-Reset-Days': header('Days until the period resets', int),
};
const RETRY_AFTER = header('Seconds to wait before retrying', int, true);
const ALLOW = header('The methods this path serves, e.g. "GET" or "POST"', { type: 'string' }, true);

const errorRef = { $ref: '#/components/schemas/ErrorEnvelope' };
const errorResponse = (description: string, extra: Json = {}) => ({
  description,
  content: { 'application/json': { schema: errorRef } },
  headers: { ...extra },
});

const STANDARD_DESCRIPTIONS: Record<string, string> = {
  200: 'OK',
  400: 'Bad request (VALIDATION_ERROR, INVALID_IMAGE, ...)',
  401: 'Missing, unknown or revoked API key',
  402: 'Quota used up (QUOTA_EXCEEDED / TEST_QUOTA_EXCEEDED); the body carries quota',
  403: 'The key lacks the scope, or the plan has no API access',
  404: "Unknown id (another shop's id answers the same)",
  405: 'This path does not serve that method (METHOD_NOT_ALLOWED); Allow lists the ones it does',
  413: 'The image is larger than MAX_IMAGE_BYTES (PAYLOAD_TOO_LARGE)',
  414: `The URL is too long (URI_TOO_LONG): the request line and headers may take at most ${maxHeaderSize} bytes together; the connection then closes`,
  422: 'The shop has no payee account (NO_PAYEE_CONFIGURED)',
  429: 'Rate limited (RATE_LIMITED); wait Retry-After seconds',
  503: 'Temporarily unavailable (database or checker down, draining); retry after Retry-After seconds',
};

const nullable = (type: string, extra: Json = {}) => ({ type: [type, 'null'], ...extra });
// Closed (additionalProperties: false) so the contract test notices a field the service sends but
// this document does not declare; the SDK's webhook types are generated from it.
export const WEBHOOK_EVENT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['event', 'id', 'created', 'data'],
  properties: {
    event: { type: 'string', enum: [...WEBHOOK_EVENT_KINDS] },
    id: {
      type: 'string',
      pattern: '^evt_[0-9a-f]+$',
      description: 'evt_...; the same on every retry of this event: keep the ones you processed',
    },
    created: { type: 'integer', description: 'Unix seconds' },
    data: {
      type: 'object',
      additionalProperties: false,
      required: [
        'transactionId',
        'transRef',
        'amount',
        'status',
        'sender',
        'receiver',
        'verifiedAt',
        'latencyMs',
        'clientRef',
        'source',
        'environment',
      ],
      properties: {
        transactionId: { type: 'string' },
        transRef: nullable('string', { description: 'null when the slip could not be read (an INVALID slip.failed)' }),
        amount: nullable('number', { description: 'THB; null when the slip could not be read' }),
        status: { type: 'string', enum: [...STATUSES] },
        sender: nullable('string', { description: "sender's name; null when the slip could not be read" }),
        receiver: nullable('string', { description: "receiver's name; null when the slip could not be read" }),
        verifiedAt: { type: 'string', format: 'date-time', description: 'when the result was recorded (ISO 8601 UTC)' },
        latencyMs: { type: 'integer', minimum: 0 },
        clientRef: nullable('string', { description: 'the clientRef given to verify; null for LINE and dashboard slips' }),
        source: { type: 'string', enum: [...SOURCES] },
        environment: {
          type: 'string',
          enum: ['live', 'test'],
          description:
            "the key environment of the check: credit orders only on live events (a sk_test_ check, and the dashboard's test event, say test)",
        },
        errorCode: nullable('string', { description: 'as on the record, e.g. EDITED_SLIP on a FRAUD whose picture prints another amount' }),
        printedAmount: nullable('number', {
          description: 'the amount the slip picture prints, as read by the service; null when not read with confidence',
        }),
        edited: { type: 'boolean', description: 'the printed amount differs from the bank amount (edited slip)' },
      },
    },
  },
};

const SIGNATURE_HOWTO = [
  'Every delivery is a POST with Content-Type application/json, signed in the `X-Service-Signature` header:',
  '`t=<unix seconds>,v1=<hex HMAC-SHA256>` where the HMAC key is the endpoint secret (whsec_...) and the message is `<t>.<raw body>`.',
  'During a secret rotation the header carries two `v1=` entries (new and old secret); accept any match.',
  'Verify on the raw bytes before parsing JSON, compare in constant time and refuse a `t` more than 5 minutes from your clock.',
  'The SDK does all of this: `verifyWebhookSignature(rawBody, header, secrets)`. Answer 2xx quickly; a failed delivery is retried,',
  'so the same event id can arrive more than once. Also sent: X-Service-Event, X-Service-Delivery-Id, X-Service-Attempt.',
  'Retries: 5, spread over at least 48 hours (about 5 min, 25 min, 2 h, 10 h and 52 h after each failure, each stretched by up to 20 %),',
  "then the delivery is failed and the shop's owner can redeliver it from the dashboard. Redirects are not followed (a 3xx is a failure:",
  'register the final URL), and a 410 Gone answer disables the endpoint (see the responses).',
].join(' ');

function webhookOperation(kind: string, operationId: string, when: string): Json {
  return {
    post: {
      operationId,
      summary: `${kind}: ${when}`,
      description: SIGNATURE_HOWTO,
      parameters: [
        {
          in: 'header',
          name: 'X-Service-Signature',
          required: true,
          schema: { type: 'string', pattern: '^t=\\d+(,v\\d+=[0-9a-f]+)+$' },
          example: 't=1761900000,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
        },
        { in: 'header', name: 'X-Service-Event', required: true, schema: { type: 'string', enum: [kind] } },
        { in: 'header', name: 'X-Service-Delivery-Id', required: true, schema: { type: 'string' } },
        {
          in: 'header',
          name: 'X-Service-Attempt',
          required: true,
          description: '1 for the first delivery, 2 for the first retry, ... 6 for the last retry; a manual redelivery counts on (7, ...)',
          schema: { type: 'integer', minimum: 1 },
        },
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: { allOf: [{ $ref: '#/components/schemas/WebhookEvent' }, { properties: { event: { const: kind } } }] },
          },
        },
      },
      responses: {
        '2XX': {
          description: 'Received. Any other answer, a redirect or no answer within the timeout is a failure and is retried (except 410)',
        },
        '410': {
          description:
            "Gone: the endpoint is disabled at once, this delivery is not retried and later ones to it are cancelled until the shop's owner enables it again. Answer 2xx, not 410, to an event you ignore",
        },
      },
      security: [],
    },
  };
}

/** Names of the shared refusals in components/responses (one per status; `Plain` ones lack the quota headers). */
const RESPONSE_NAMES: Record<string, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  402: 'QuotaExceeded',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  413: 'PayloadTooLarge',
  414: 'UriTooLong',
  422: 'NoPayeeConfigured',
  429: 'RateLimited',
  503: 'Unavailable',
};

/**
 * A refusal that is the same on every route (the envelope, the standard description and headers) is
 * written once under components/responses and referenced: integrators read one definition, and the SDK's
 * generated types name it instead of repeating it per route. A route whose refusal says more keeps its own.
 */
function hoistSharedResponses(doc: Json): void {
  const shared: Json = {};
  for (const item of Object.values<Json>(doc.paths ?? {})) {
    for (const op of Object.values<Json>(item)) {
      if (!op?.responses) continue;
      for (const [status, res] of Object.entries<Json>(op.responses)) {
        const base = RESPONSE_NAMES[status];
        const envelopeOnly = res.content?.['application/json']?.schema?.$ref === errorRef.$ref;
        if (!base || res.$ref || !envelopeOnly || res.description !== STANDARD_DESCRIPTIONS[status]) continue;
        const name = res.headers?.['X-Service-Quota-Limit'] ? base : `Plain${base}`;
        const body = JSON.stringify(res);
        if (shared[name] && JSON.stringify(shared[name]) !== body) continue; // differs: stays inline
        shared[name] = res;
        op.responses[status] = { $ref: `#/components/responses/${name}` };
      }
    }
  }
  if (Object.keys(shared).length) doc.components.responses = { ...(doc.components.responses ?? {}), ...shared };
}

export function enrichOpenApi(doc: Json): Json {
  doc.components ??= {};
  doc.components.schemas ??= {};
  doc.components.schemas.WebhookEvent = WEBHOOK_EVENT_SCHEMA;
  doc.components.headers = { ...RESPONSE_HEADERS, 'Retry-After': RETRY_AFTER, Allow: ALLOW };
  const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });
  const commonHeaders = (api: boolean) => ({
    'X-Request-Id': ref('X-Request-Id'),
    ...(api
      ? Object.fromEntries(
          Object.keys(RESPONSE_HEADERS)
            .filter((h) => h !== 'X-Request-Id')
            .map((h) => [h, ref(h)]),
        )
      : {}),
  });

  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    const api = path.startsWith('/api/v1/');
    for (const op of Object.values<Json>(item)) {
      if (!op || typeof op !== 'object' || !op.responses) continue;
      if (!api) op.security = []; // health: no key
      op.responses['405'] ??= errorResponse(STANDARD_DESCRIPTIONS[405]!);
      op.responses['414'] ??= errorResponse(STANDARD_DESCRIPTIONS[414]!);
      op.responses['503'] ??= errorResponse(STANDARD_DESCRIPTIONS[503]!);
      for (const [status, res] of Object.entries<Json>(op.responses)) {
        if (res.$ref) continue;
        if (!res.description || res.description === 'Default Response')
          res.description = STANDARD_DESCRIPTIONS[status] ?? res.description ?? 'Answer';
        // A 414 is answered before any route reads the key (Node refuses the request line): no quota headers.
        res.headers = { ...commonHeaders(api && status !== '414'), ...(res.headers ?? {}) };
        if (status === '429' || status === '503') res.headers['Retry-After'] = ref('Retry-After');
        if (status === '405') res.headers.Allow = ref('Allow');
      }
    }
  }

  hoistSharedResponses(doc);

  const verify = doc.paths?.['/api/v1/verify']?.post;
  if (verify) {
    // Raw bytes, not multipart: Swagger UI shows a file picker for a binary string body.
    const binary = (media: string) => ({ schema: { type: 'string', format: 'binary', contentMediaType: media } });
    verify.requestBody = {
      required: true,
      description: 'The slip image as the raw request body (JPEG or PNG bytes; not JSON, multipart or base64), at most MAX_IMAGE_BYTES.',
      content: {
        'application/octet-stream': binary('application/octet-stream'),
        'image/jpeg': binary('image/jpeg'),
        'image/png': binary('image/png'),
      },
    };
  }

  doc.webhooks = {
    'slip.verified': webhookOperation('slip.verified', 'onSlipVerified', 'a slip was checked and is genuine (status SUCCESS)'),
    'slip.duplicate': webhookOperation(
      'slip.duplicate',
      'onSlipDuplicate',
      'a second slip for an already verified transfer (status DUPLICATE)',
    ),
    'slip.failed': webhookOperation(
      'slip.failed',
      'onSlipFailed',
      'any other outcome (INVALID, AMOUNT_MISMATCH, RECEIVER_MISMATCH, FRAUD, ...)',
    ),
  };
  return doc;
}
