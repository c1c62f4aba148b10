import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Admission, SubmitOutcome } from '../api/admission';
import type { ChainReader } from '../api/chainReader';
import type { ChainView } from '../api/chainView';
import type { NodeConfig } from '../config/config';
import { CairnError } from '../errors/CairnError';
import { startP2pHost, type P2pHost } from '../network/libp2p/host';
import { loadOrCreatePeerKey } from '../network/libp2p/peerKey';
import type { TxJudgement } from '../network/libp2p/topicGossip';
import type { WireTx } from '../network/libp2p/wire';
import type { Libp2pSide } from '../network/network';
import { peerStatusOf } from '../network/peerClient';
import type { Network } from '../protocol/network';
import type { ChainStore } from '../storage/chainStore';
import type { Hex } from '../primitives/hex';
import type { SignedTx } from '../protocol/types';

/**
 * The node's libp2p side: its host (the peer key in the data directory, the listen addresses), and what the network
 * layer asks of the rest of the node: admission of a peer's transaction, and the status and pages it serves.
 */

/** The file of the node's peer identity in its data directory (network/libp2p/peerKey.ts). */
export const PEER_KEY_FILE = 'p2p-key';

/** `--listen`, or a port the system picks on `--host`. */
export const listenAddrs = (config: Pick<NodeConfig, 'listen' | 'host'>): string[] =>
  config.listen.length > 0
    ? config.listen
    : [config.host.includes(':') ? `/ip6/${config.host}/tcp/0` : `/ip4/${config.host}/tcp/0`];

export async function startNodeHost(config: NodeConfig, network: Network, log: Logger): Promise<P2pHost> {
  const listen = listenAddrs(config);
  try {
    return await startP2pHost({
      privateKey: await loadOrCreatePeerKey(join(config.dataDir, PEER_KEY_FILE)),
      listen,
      genesisHash: network.genesisHash,
      log,
    });
  } catch (e) {
    if (e instanceof CairnError) throw e;
    throw new CairnError(
      'LISTEN',
      `cannot listen on ${listen.join(', ')} (peer-to-peer): the port is in use or the address is not this machine's`,
      { listen, cause: String(e) },
      { cause: e },
    );
  }
}

/**
 * What admission made of a peer's transaction, as gossip judges it: only what no node would accept (malformed,
 * forged) is `invalid`; a refusal for this node's state (a used nonce, a full mempool) is `refused`.
 */
export function judged(out: SubmitOutcome): TxJudgement {
  if (out.kind === 'malformed') return 'invalid';
  if (out.kind === 'unavailable') return 'busy';
  if (out.verdict.accepted) return 'accepted';
  return out.invalid ? 'invalid' : 'refused';
}

export function nodeLibp2p(d: {
  host: P2pHost;
  network: Network;
  view: ChainView;
  admission: () => Admission | undefined;
  reader: () => ChainReader | undefined;
  store: Pick<ChainStore, 'heightOfHash'>;
  /** The mempool's transactions by id (blocks travel compact, rebuilt from it). */
  pending: (id: Hex) => SignedTx | undefined;
  peersOnly: boolean;
}): Libp2pSide {
  return {
    host: d.host,
    lookupTx: d.pending,
    knownBlock: async (hash) => (await d.store.heightOfHash(hash)) !== undefined,
    ...(d.peersOnly && { targetPeers: 0 }),
    async admitTx(tx: WireTx): Promise<TxJudgement> {
      const admission = d.admission();
      if (!admission || tx.kind === 'malformed') return admission ? 'invalid' : 'busy';
      const out =
        tx.kind === 'eth'
          ? await admission.submitRaw(tx.raw, { relay: false })
          : await admission.submit(tx.body, { relay: false });
      return judged(out);
    },
    serve: {
      status: () => peerStatusOf(d.view.head, d.network),
      async chainPage(from, limit) {
        const reader = d.reader();
        if (!reader) throw new Error('starting');
        return (await reader.chainBinary(from, limit)).bytes;
      },
    },
  };
}
