import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from './db.js';

const err = (props: Record<string, unknown>, message = 'x') => Object.assign(new Error(message), props);

// Only "cannot reach the database right now" becomes the retryable 503; a wrong query, a constraint
// or bad data stays a 500 (or its own mapped error), or a real bug would hide behind "retry later".
describe('isDatabaseUnavailable', () => {
  it.each([
    ['admin shutdown (pg_terminate_backend, restart)', err({ code: '57P01' })],
    ['crash shutdown', err({ code: '57P02' })],
    ['cannot connect now (starting up)', err({ code: '57P03' })],
    ['too many connections', err({ code: '53300' })],
    ['connection failure class 08', err({ code: '08006' })],
    ['connection refused', err({ code: 'ECONNREFUSED' })],
    ['connection reset', err({ code: 'ECONNRESET' })],
    ['pg: terminated', err({}, 'Connection terminated unexpectedly')],
    ['pg: connect timeout', err({}, 'timeout exceeded when trying to connect')],
    ['pg: broken client reused', err({}, 'Client has encountered a connection error and is not queryable')],
    ['SQLite busy', err({ code: 'SQLITE_BUSY' })],
    ['SQLite locked', err({ code: 'SQLITE_LOCKED_SHAREDCACHE' })],
    ['wrapped in a cause', new Error('outer', { cause: err({ code: '57P01' }) })],
  ])('%s: yes', (_name, e) => {
    expect(isDatabaseUnavailable(e)).toBe(true);
  });

  it.each([
    ['unique violation', err({ code: '23505' })],
    ['syntax error', err({ code: '42601' })],
    ['invalid text (e.g. NUL)', err({ code: '22021' })],
    ['SQLite constraint', err({ code: 'SQLITE_CONSTRAINT_UNIQUE' })],
    ['a plain bug', new TypeError('cannot read properties of undefined')],
    ['not an error', undefined],
  ])('%s: no', (_name, e) => {
    expect(isDatabaseUnavailable(e)).toBe(false);
  });
});
