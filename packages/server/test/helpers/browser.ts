// Headless Chromium for the browser tests: Debian's package driven by playwright-core (nothing is
// downloaded). A test file without Chromium is skipped and says so in the output.
import fs from 'node:fs';
import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const HAS_CHROMIUM = fs.existsSync(CHROMIUM);

/** Call at the top of a browser test file: prints why its tests are skipped when Chromium is missing. */
export function warnIfNoChromium(what: string): void {
  if (!HAS_CHROMIUM)
    console.warn(`[${what}] SKIPPED: ${CHROMIUM} not found. Install it with \`apt-get install -y chromium\` (.ci/run does).`);
}

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage'],
  });
}

/**
 * A page context as a Thai user in Bangkok sees it. Reduced motion: the app then scrolls without
 * animation, so screenshots never catch a scroll half-way.
 */
export function thaiContext(browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  return browser.newContext({ locale: 'th-TH', timezoneId: 'Asia/Bangkok', reducedMotion: 'reduce', ...options });
}
