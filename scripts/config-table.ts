// Prints the README's configuration table from the one config schema (npx tsx scripts/config-table.ts).
import { configTableMarkdown } from '../packages/server/src/config.js';

process.stdout.write(configTableMarkdown());
