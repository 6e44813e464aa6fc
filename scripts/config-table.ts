// Prints the README's configuration table from the one config schema (npx tsx scripts/config-table.ts).
import { CONFIG_DOC } from '../packages/server/src/config.js';

console.log('| variable | default | meaning |\n|---|---|---|');
for (const [name, item] of Object.entries(CONFIG_DOC)) {
  const def = item.def === '' ? '(empty)' : `\`${item.def}\``;
  console.log(`| \`${name}\` | ${def} | ${item.doc} |`);
}
