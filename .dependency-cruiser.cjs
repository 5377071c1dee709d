// The layers' allowed import directions (README "Architecture"): facades and
// providers depend on core, core on storage, lib on nothing of ours; no
// cycles. server/ is the composition root and may import any layer.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: "no-cycles", severity: "error", comment: "A cycle between modules makes load order and layering accidental.", from: {}, to: { circular: true } },
    {
      name: "core-stays-inside",
      severity: "error",
      comment: "The core knows no wire format, vendor, edge or composition root.",
      from: { path: "^src/core/" },
      to: { path: "^src/(facades|providers|server|trpc|wire)/" },
    },
    {
      name: "storage-below-core",
      severity: "error",
      comment: "Storage is below the core and every edge.",
      from: { path: "^src/storage/" },
      to: { path: "^src/(core|facades|providers|server|trpc|wire)/" },
    },
    { name: "lib-is-a-leaf", severity: "error", comment: "Shared utilities depend on nothing of ours but themselves.", from: { path: "^src/lib/" }, to: { path: "^src/(?!lib/)" } },
    { name: "wire-is-vendor-knowledge", severity: "error", comment: "Vendor wire schemas depend on lib only.", from: { path: "^src/wire/" }, to: { path: "^src/(?!lib/|wire/)" } },
    {
      name: "facades-not-providers",
      severity: "error",
      comment: "A facade reaches upstreams only through the core.",
      from: { path: "^src/facades/" },
      to: { path: "^src/(providers|server|storage)/" },
    },
    { name: "providers-not-facades", severity: "error", comment: "A provider knows no inbound wire format.", from: { path: "^src/providers/" }, to: { path: "^src/(facades|server|trpc|storage)/" } },
    {
      name: "trpc-is-an-edge",
      severity: "error",
      comment: "tRPC is an edge like the facades and shares their edge helpers.",
      from: { path: "^src/trpc/" },
      to: { path: "^src/(facades|providers|server)/", pathNot: "^src/facades/shared/" },
    },
    {
      name: "facades-apart",
      severity: "error",
      comment: "Facades share code only through facades/shared.",
      from: { path: "^src/facades/([^/]+)/" },
      to: { path: "^src/facades/", pathNot: ["^src/facades/$1/", "^src/facades/shared/"] },
    },
    {
      name: "providers-apart",
      severity: "error",
      comment: "Providers share code only through providers/shared.",
      from: { path: "^src/providers/([^/]+)/" },
      to: { path: "^src/providers/", pathNot: ["^src/providers/$1/", "^src/providers/shared/", "^src/providers/types\\.ts$"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(gen|node_modules)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  },
};
