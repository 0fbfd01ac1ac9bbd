/// <reference types="vitest/config" />
import { defineConfig, type Plugin } from 'vite';

// The page must also work from a file:// copy, where browsers refuse module
// scripts and crossorigin fetches: the bundle is one classic (IIFE) script,
// loaded with `defer`, and the tags lose type="module" and crossorigin.
function classicScripts(): Plugin {
  return {
    name: 'core-classic-scripts',
    apply: 'build',
    enforce: 'post',
    transformIndexHtml: {
      order: 'post',
      handler(html) {
        return html
          .replace(/<script type="module" crossorigin src=/g, '<script defer src=')
          .replace(/<script type="module" src=/g, '<script defer src=')
          .replace(/<link rel="stylesheet" crossorigin href=/g, '<link rel="stylesheet" href=');
      },
    },
  };
}

export default defineConfig({
  base: './',
  experimental: {
    // Chunks and the worker are found from the page's own URL (index.html
    // sits at the root of gen/), not from document.currentScript, which is
    // null once the classic script has finished its first run.
    renderBuiltUrl(filename, { hostType }) {
      if (hostType === 'js') return { runtime: `new URL(${JSON.stringify(filename)}, document.baseURI).href` };
      return { relative: true };
    },
  },
  plugins: [classicScripts()],
  build: {
    outDir: 'gen',
    emptyOutDir: true,
    sourcemap: false,
    target: 'es2022',
    modulePreload: false,
    // One CSS file: the page's CSP forbids the <style> tags an IIFE bundle
    // would otherwise inject.
    cssCodeSplit: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 600,
    rollupOptions: {
      output: {
        format: 'iife',
        inlineDynamicImports: true,
        entryFileNames: 'assets/explorer-[hash].js',
        assetFileNames: 'assets/explorer-[hash][extname]',
      },
    },
  },
  worker: {
    format: 'iife',
    rollupOptions: {
      output: {
        entryFileNames: 'assets/layout-worker-[hash].js',
      },
    },
  },
  // `npm run dev`: the page at http://127.0.0.1:5173/ with the API proxied to
  // a running core server (CORE_URL, default http://127.0.0.1:7391). The
  // Origin header is dropped so the server's origin check sees a plain
  // loopback client.
  server: {
    host: '127.0.0.1',
    proxy: Object.fromEntries(
      ['/api/', '^/core\\.[a-z]+\\.v1alpha1\\.'].map((path) => [
        path,
        {
          target: process.env.CORE_URL ?? 'http://127.0.0.1:7391',
          configure: (proxy: { on(ev: 'proxyReq', fn: (req: { removeHeader(name: string): void }) => void): void }) =>
            proxy.on('proxyReq', (req) => req.removeHeader('origin')),
        },
      ]),
    ),
  },
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
  },
});
