/// <reference types="vitest/config" />
import { defineConfig } from 'vite';

// The console is served by the Drover server under /ui/ with a strict CSP (script-src 'self'; style-src 'self'):
// no inline scripts or styles in index.html, no module-preload polyfill, hashed asset names.
// npm run dev proxies the API to a running server: DROVER_API (default: the quickstart's port).
const target = process.env.DROVER_API ?? 'http://127.0.0.1:8080';

export default defineConfig({
  base: '/ui/',
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: process.env.DROVER_UI_OUT || 'dist',
    emptyOutDir: true,
    target: 'es2020',
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
  },
  server: {
    port: 5173,
    strictPort: true,
    host: '127.0.0.1',
    proxy: {
      '/api': { target, changeOrigin: false },
      '/healthz': { target, changeOrigin: false },
    },
  },
  test: {
    environment: 'node',
    include: ['src/**/*.test.{ts,tsx}'],
  },
});
