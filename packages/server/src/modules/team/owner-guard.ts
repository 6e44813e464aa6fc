import type { onRequestAsyncHookHandler } from 'fastify';
import { AppError } from '../../errors.js';
import type { DashboardAuthDeps } from '../accounts/session-auth.js';

/**
 * Owner-only dashboard actions (team, API keys, webhooks, payee changes, shop settings, export/erase).
 * Runs after requireSession in the same onRequest list: `onRequest: [session, requireOwner(auth)]`.
 * The role is read per request (one indexed read) so a change bites at once, like session revokes.
 */
export function requireOwner(auth: Pick<DashboardAuthDeps, 'roleOf'>): onRequestAsyncHookHandler {
  return async (req) => {
    const role = req.dashboard ? await auth.roleOf(req.dashboard.userId) : null;
    if (role !== 'owner') throw new AppError('OWNER_ONLY', 403, 'Only the shop owner can do this');
  };
}
