import type { Kysely } from 'kysely';

// When LINE last said the bot is in a linked group: the time LINE stamped on the latest `join` event,
// or on the message that linked the group with a code. LINE redelivers an event whose delivery failed
// later, after newer ones: a `leave` stamped before that time is old news (the bot was removed and
// added back, or the group was linked again since) and must not unlink the group, which went silent
// with no one told. Null for rows linked before this column: any leave applies to them, as before.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('line_groups').addColumn('joined_at', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('line_groups').dropColumn('joined_at').execute();
}
