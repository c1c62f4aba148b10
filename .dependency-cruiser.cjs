/**
 * The layers of src/ and the direction of their imports (docs/LAYERS.md).
 * `.ci/run` fails on any violation: `npm run check:layers`.
 *
 * Each folder may import only the folders listed for it (and itself). Type-only imports
 * count: a type import against the direction is still a dependency on a higher layer.
 */
const LAYERS = {
  primitives: [],
  errors: ['primitives'],
  protocol: ['primitives', 'errors'],
  crypto: ['primitives', 'errors', 'protocol'],
  state: ['primitives', 'errors', 'protocol', 'crypto'],
  vm: ['primitives', 'errors', 'protocol', 'crypto', 'state'],
  machines: ['primitives', 'errors', 'protocol'],
  // modules/ applies the pure consensus rules (finality) at the end of each block.
  modules: ['primitives', 'errors', 'protocol', 'crypto', 'state', 'vm', 'machines', 'consensus'],
  mempool: ['primitives', 'errors', 'protocol', 'crypto'],
  consensus: ['primitives', 'errors', 'protocol', 'crypto'],
  chain: ['primitives', 'errors', 'protocol', 'crypto', 'state', 'vm', 'machines', 'modules', 'consensus'],
  contracts: ['primitives', 'errors', 'protocol', 'crypto'],
  config: ['primitives', 'errors', 'protocol'],
  // The JSON shapes of the HTTP API, shared by the server (api/) and the SDK.
  views: ['primitives', 'protocol', 'crypto', 'machines', 'modules'],
  // storage keeps the signing guard, whose vote rules are consensus's.
  storage: ['primitives', 'errors', 'protocol', 'crypto', 'state', 'machines', 'modules', 'chain', 'consensus'],
  // views/: the wire vocabulary; what an actor answers with is the shape the API serves.
  actors: [
    'primitives',
    'errors',
    'protocol',
    'crypto',
    'state',
    'vm',
    'machines',
    'modules',
    'mempool',
    'consensus',
    'chain',
    'storage',
    'views',
  ],
  // Peers, gossip, sync, POST /blocks and readiness: talks to the consensus actor through its mailbox.
  network: ['primitives', 'errors', 'protocol', 'crypto', 'consensus', 'chain', 'actors', 'views'],
  // api/ports.ts names the POST /blocks port (network/blockIntake.ts) for http/.
  api: [
    'primitives',
    'errors',
    'protocol',
    'crypto',
    'state',
    'vm',
    'machines',
    'modules',
    'mempool',
    'consensus',
    'chain',
    'storage',
    'actors',
    'network',
    'contracts',
    'views',
  ],
  // What both servers (the HTTP API and JSON-RPC) share: CORS, the client gate (rate limit, guard), bodies, request
  // ids.
  web: ['primitives', 'errors', 'protocol', 'views'],
  http: ['primitives', 'errors', 'protocol', 'crypto', 'api', 'contracts', 'views', 'web'],
  rpc: ['primitives', 'errors', 'protocol', 'crypto', 'api', 'views', 'web'],
  sdk: ['primitives', 'errors', 'protocol', 'crypto', 'modules', 'chain', 'state', 'views'],
  cli: ['primitives', 'errors', 'protocol', 'crypto', 'config', 'sdk', 'modules', 'chain', 'node'],
  // The block explorer: browser code, bundled by http/explorer.ts; it reads the API's shapes only.
  explorer: ['primitives', 'views'],
  node: Object.keys({}) /* filled below: everything */,
};
const ALL = Object.keys(LAYERS);
LAYERS.node = ALL.filter((l) => l !== 'node' && l !== 'cli');

const forbidden = [
  {
    name: 'no-folder-cycle',
    comment: 'A cycle between modules (and so between folders) of src/.',
    severity: 'error',
    from: { path: '^src/' },
    to: { circular: true },
  },
  {
    name: 'unknown-layer',
    comment: 'Every folder of src/ is a layer listed in .dependency-cruiser.cjs.',
    severity: 'error',
    from: { path: `^src/(?!(${ALL.join('|')})/)` },
    to: {},
  },
  ...ALL.map((layer) => ({
    name: `layer-${layer}`,
    comment: `${layer}/ may import only: ${LAYERS[layer].join(', ') || 'nothing outside itself'}.`,
    severity: 'error',
    from: { path: `^src/${layer}/` },
    to: { path: `^src/(?!(${[layer, ...LAYERS[layer]].join('|')})/)` },
  })),
];

module.exports = {
  forbidden,
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|test|bench)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.mts', '.js', '.mjs', '.json'] },
  },
};
