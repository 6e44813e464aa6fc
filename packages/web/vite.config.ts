import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';

// The service serves dist/ at `/`; in development Vite proxies /api to a local service (PORT 3000 by default).
// Two pages: the dashboard (index.html) and the LINE mini-app (miniapp.html, served at /miniapp), which
// share components and chunks; only the mini-app loads the LIFF SDK.
export default defineConfig({
  plugins: [react()],
  // The SDK from source (its package exports point at a built dist/): the bank table is shared with it.
  resolve: { alias: [{ find: /^@slipcheck\/sdk$/, replacement: fileURLToPath(new URL('../sdk/src/index.ts', import.meta.url)) }] },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 600,
    rollupOptions: { input: { index: 'index.html', miniapp: 'miniapp.html' } },
  },
  server: { proxy: { '/api': { target: process.env.SLIPCHECK_URL ?? 'http://127.0.0.1:3000', changeOrigin: false } } },
});
