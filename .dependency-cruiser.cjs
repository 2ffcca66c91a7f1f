/**
 * The direction imports take, checked by `pnpm lint`. In the API a request walks down:
 * http (or a worker) → services → sources → adapters → store, and nothing below imports what is
 * above it. Composition (main, app, config, assembly, cli, admin) sits on top and may
 * import anything; routes and workers are given what they use and never import it. Packages never
 * import the apps, and nothing imports a test folder it does not own.
 */
const api = "^apps/api/src/";
const composition = `${api}(main|app|config)\\.ts$|${api}(assembly|cli|admin)/`;
const delivery = `${api}(http|workers)/`;
const leaves = `${api}(errors|ids|logger|metrics|package-files|run-concurrently)\\.ts$`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "A circle makes two modules one in all but name; break it with a port or a module both import.",
      from: {},
      to: { circular: true },
    },
    {
      name: "services-point-down",
      severity: "error",
      comment: "Services are called by routes and workers and never know them; ports live beside their users.",
      from: { path: `${api}services/` },
      to: { path: [composition, delivery] },
    },
    {
      name: "sources-point-down",
      severity: "error",
      comment: "A source reads a platform for a service; it knows adapters and the store, not who called it.",
      from: { path: `${api}sources/` },
      to: { path: [composition, delivery, `${api}services/`] },
    },
    {
      name: "adapters-point-down",
      severity: "error",
      comment:
        "Adapters speak to one upstream each and know nothing of the service built on them; they fail with the sources' SourceError.",
      from: { path: `${api}adapters/` },
      to: { path: [composition, delivery, `${api}(services|sources)/`], pathNot: `${api}sources/source-error\\.ts$` },
    },
    {
      name: "one-error-boundary",
      severity: "error",
      comment:
        "Adapters and sources fail with SourceError only; services/failures/source-failures.ts is the one place it becomes the catalog's ApiError.",
      from: { path: `${api}(adapters|sources)/` },
      to: { path: `${api}errors\\.ts$` },
    },
    {
      name: "store-is-the-floor",
      severity: "error",
      comment: "The store and the queue are the bottom layer: they import only each other and the leaf modules.",
      from: { path: `${api}(store|queue)/` },
      to: { path: [composition, delivery, `${api}(services|sources|adapters)/`] },
    },
    {
      name: "delivery-is-given-its-services",
      severity: "error",
      comment:
        "Routes and workers receive the services they use from the composition (http/app-deps.ts says what the app is given); they never import it.",
      from: { path: delivery },
      to: { path: composition },
    },
    {
      name: "leaf-modules-stay-leaves",
      severity: "error",
      comment:
        "Every layer imports the leaf modules, so they import nothing above the store (metrics reads queue depths).",
      from: { path: leaves },
      to: { path: [composition, delivery, `${api}(services|sources|adapters)/`] },
    },
    {
      name: "routes-do-not-run-workers",
      severity: "error",
      comment: "Routes and workers are siblings: what both need lives in a service.",
      from: { path: `${api}http/` },
      to: { path: `${api}workers/` },
    },
    {
      name: "domains-have-one-face",
      severity: "error",
      comment:
        "A service domain (a folder of services/) is entered through its index.ts, so what it keeps to itself can change freely.",
      from: { path: `${api}`, pathNot: [`${api}services/`, "\\.test\\.ts$"] },
      to: { path: `${api}services/[^/]+/`, pathNot: `${api}services/[^/]+/index\\.ts$` },
    },
    {
      name: "domains-meet-at-their-faces",
      severity: "error",
      comment: "One domain uses another only through that domain's index.ts.",
      from: { path: `${api}services/([^/]+)/`, pathNot: "\\.test\\.ts$" },
      to: { path: `${api}services/[^/]+/`, pathNot: [`${api}services/$1/`, `${api}services/[^/]+/index\\.ts$`] },
    },
    {
      name: "source-does-not-import-tests",
      severity: "error",
      from: { path: "/src/", pathNot: "\\.test\\.tsx?$" },
      to: { path: "/test/" },
    },
    {
      name: "packages-do-not-import-apps",
      severity: "error",
      comment: "Libraries ship on their own; an app is built from them, never the other way round.",
      from: { path: "^packages/" },
      to: { path: "^apps/" },
    },
    {
      name: "no-foreign-tests",
      severity: "error",
      comment: "A package's tests are its own; a harness others need belongs in @verbatim/testkit.",
      from: { path: "^(apps|packages|examples)/([^/]+)/" },
      to: { path: "^(apps|packages|examples)/[^/]+/test/", pathNot: "^$1/$2/test/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|dist|generated)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.base.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types"],
      extensions: [".ts", ".tsx", ".js", ".mjs"],
    },
    combinedDependencies: false,
  },
};
