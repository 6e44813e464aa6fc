import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The service serves dist/ at `/`; in development Vite proxies /api to a local service (PORT 3000 by default).
export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 600 },
  server: { proxy: { '/api': { target: process.env.SLIPCHECK_URL ?? 'http://127.0.0.1:3000', changeOrigin: false } } },
});
