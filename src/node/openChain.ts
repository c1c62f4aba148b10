import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { loadChainView, type ChainView } from '../api/chainView';
import type { NodeConfig } from '../config/config';
import type { HybridKeys } from '../crypto/keys';
import { enableFastMldsaSigning } from '../crypto/mldsaSign';
import { VerifyPool } from '../crypto/verifyPool';
import type { Network } from '../protocol/network';
import type { KvStore } from '../state/kv';
import { StateTrie } from '../state/stateTrie';
import { sizeSharedNodes } from '../state/trieNodes';
import { ChainStore, type Head } from '../storage/chainStore';
import { dirError, openStore } from '../storage/rocks';
import { SigningGuard } from '../storage/signingGuard';
import { VmCallPool } from '../vm/callPool';
import type { Closers } from './closers';
import { checkValidatorKey, ensureGenesis, validatorKeys } from './genesisSource';
import { syncState } from './stateSync';

/** The chain a node runs on, open: its store, head, read model, signing key and the worker pools. */
export interface OpenChain {
  kv: KvStore;
  store: ChainStore;
  head: Head;
  /** The chain's genesis hash and id. */
  network: Network;
  view: ChainView;
  keys: HybridKeys;
  signingGuard: SigningGuard;
  verifier: VerifyPool;
  vmCalls: VmCallPool;
}

/**
 * Opens (or creates) the store in the data directory, its genesis and read model, checks the
 * validator key against the chain, and starts the signature and VM call worker pools. What it
 * opens is pushed on `closers` as it opens, so a failure part-way closes it.
 */
export async function openChain(
  config: NodeConfig,
  log: Logger,
  closers: Closers,
  o: { wrapKv?: (kv: KvStore) => KvStore; now: () => number },
): Promise<OpenChain> {
  try {
    await mkdir(config.dataDir, { recursive: true });
  } catch (e) {
    throw await dirError(config.dataDir, e);
  }
  const rocks = await openStore(join(config.dataDir, 'chain'));
  closers.push('store', () => rocks.close());
  const kv = o.wrapKv ? o.wrapKv(rocks) : rocks;
  sizeSharedNodes(kv, config.stateCacheMb * 2 ** 20);
  const store = new ChainStore(kv, { devUndo: config.dev });
  let head = await ensureGenesis(store, config, log, o.now);
  const network = await store.network();
  if (config.sync === 'state' && config.checkpoint !== null) {
    if (head.height > 0)
      log.info(
        { height: head.height },
        'the store holds a chain: --sync state is for an empty one; following by blocks',
      );
    else
      head = await syncState({
        kv,
        store,
        // State sync reads snapshots over the peers' HTTP API (their URLs among --peers).
        peers: config.peers.filter((p) => !p.startsWith('/')),
        checkpoint: config.checkpoint,
        genesisHash: network.genesisHash,
        log,
      });
  }
  const headState = await StateTrie.open(kv, head.stateRoot);
  const view = await loadChainView(store, head, headState, o.now());
  const keys = await validatorKeys(config);
  if (config.allowInsecureKeyFile && (config.validatorKey !== null || config.adminTokenFile !== null))
    log.warn(
      { validatorKey: config.validatorKey, adminTokenFile: config.adminTokenFile },
      '--allow-insecure-key-file: key and token files are used even where other users of this machine can read them',
    );
  await checkValidatorKey(headState, view.validators, keys, config, log);
  const signingGuard = await SigningGuard.open(join(config.dataDir, 'signing-guard.json'));
  const verifier = await VerifyPool.start({ workers: config.verifyWorkers });
  // Headers (and bridge attestations) are ML-DSA signed on the block's path: ~0.45 ms with liboqs against ~3.3 ms.
  if (!(await enableFastMldsaSigning())) log.warn('liboqs ML-DSA-44 signing unavailable: signing with noble (slower)');
  closers.push('verifier', () => verifier.close());
  const vmCalls = VmCallPool.create(kv, {
    workers: config.vmCallWorkers,
    timeoutMs: config.vmCallTimeoutMs,
    maxQueue: config.vmCallQueue,
  });
  closers.push('vm calls', () => vmCalls.close());
  return { kv, store, head, network, view, keys, signingGuard, verifier, vmCalls };
}
