#!/usr/bin/env bash
# Regenerates the configuration table in README.md from the config schema.
set -euo pipefail
cd "$(dirname "$0")/.."
npx tsx scripts/config-table.ts > /tmp/slipcheck-config-table.md 2>/dev/null
python3 - <<'PY'
import re
readme = open('README.md').read()
table = open('/tmp/slipcheck-config-table.md').read()
start = readme.index('| variable | default | meaning |')
end = readme.index('\n## Going to production')
open('README.md', 'w').write(readme[:start] + table + readme[end:])
PY
