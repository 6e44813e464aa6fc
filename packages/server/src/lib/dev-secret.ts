import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * The development master secret: DATA_DIR/dev-secret.key, made on first start so that restarts keep
 * sessions and encrypted secrets readable (production sets SECRET_KEY instead).
 */
export function readOrCreateDevSecret(dataDir: string): string {
  const file = path.join(dataDir, 'dev-secret.key');
  fs.mkdirSync(dataDir, { recursive: true });
  if (!fs.existsSync(file)) {
    // Several processes may start on a fresh DATA_DIR at once (two workers, a node and the CLI). Each
    // writes a whole secret under a name of its own and links it into place: the link fails for all
    // but the first (EEXIST), and nobody ever reads a created but not yet written file.
    const own = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    fs.writeFileSync(own, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
    try {
      fs.linkSync(own, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      fs.rmSync(own, { force: true });
    }
  }
  return fs.readFileSync(file, 'utf8').trim();
}
