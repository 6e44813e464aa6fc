import type { onRequestAsyncHookHandler } from 'fastify';
import type { Db } from '../../db/db.js';
import { AppError } from '../../errors.js';

/**
 * Owner-only dashboard actions (team, API keys, webhooks, payee changes, shop settings, export/erase).
 * Runs after requireSession in the same onRequest list: `onRequest: [session, ownerOnly]`.
 * The role is read per request (one indexed read) so a change bites at once, like session revokes.
 */
export function requireOwner(db: Db): onRequestAsyncHookHandler {
  return async (req) => {
    const p = req.dashboard;
    const row = p
      ? await db.selectFrom('users').select('role').where('id', '=', p.userId).where('deleted_at', 'is', null).executeTakeFirst()
      : undefined;
    if (!row || row.role === 'staff') throw new AppError('OWNER_ONLY', 403, 'Only the shop owner can do this');
  };
}
