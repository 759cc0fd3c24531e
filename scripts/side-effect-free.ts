import type { Plugin } from 'esbuild';

/**
 * sideEffectFree lets esbuild drop @actions/core's HTTP client when nothing
 * calls it. @actions/core imports it at the top for getIDToken (OIDC), which
 * benchbot never calls; the client brings undici and tunnel, about 800 KB
 * that every action step would load at start. Those packages do not declare
 * themselves free of side effects, so esbuild keeps them unless told; what
 * is used from them is still bundled.
 */
export const sideEffectFree: Plugin = {
  name: 'side-effect-free',
  setup(build) {
    build.onResolve({ filter: /^(@actions\/(http-client|exec|io)|undici|tunnel)(\/|$)/ }, async (args) => {
      if (args.pluginData === 'side-effect-free') return undefined;
      const resolved = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'side-effect-free' });
      return resolved.errors.length > 0 ? undefined : { path: resolved.path, external: resolved.external, sideEffects: false };
    });
  },
};
