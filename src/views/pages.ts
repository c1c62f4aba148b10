import type { ContractMetadata } from '../protocol/contracts';
import type { Address, Block, HybridTx } from '../protocol/types';
import type { Hex } from '../primitives/hex';
import type { CollectionDetail, ItemView } from './assets';
import type { BlockSummaryView, SearchHit } from './chain';
import type { AddressTxsPage, InternalTransferView, LogView } from './feeds';
import type { CappedPage } from './paging';
import type { TxSummary } from './tx';

/**
 * The shapes the chain, transaction, VM and contract routes build around the readers'
 * values (lists wrapped in an object, the submission verdicts, the request bodies): named
 * here so the routes are annotated with them and docs/openapi.json is generated from them.
 */

/** GET /blocks. */
export interface BlockList extends CappedPage {
  blocks: BlockSummaryView[];
}

/** GET /txs. */
export interface TxList extends CappedPage {
  txs: TxSummary[];
}

/** GET /address/:end/txs: the page with the address it is for (0x form). */
export type AddressTxsView = AddressTxsPage & { address: Address } & CappedPage;

/** GET /search: the query as used (trimmed to 200 characters) and its hits. */
export interface SearchView {
  q: string;
  results: SearchHit[];
}

/** GET /internal. */
export interface InternalList extends CappedPage {
  internal: InternalTransferView[];
}

/** GET /logs. */
export interface LogList extends CappedPage {
  logs: LogView[];
}

/** GET /nfts/:id: a collection with a page of its items, or one item for `<collection>:<item>`. */
export type NftView = CollectionDetail | ItemView;

/** POST /tx body: the hybrid envelope (docs/PROTOCOL.md "Transaction envelope"). */
export type TxEnvelope = HybridTx;

/** POST /vm/tx body: a signed Ethereum transaction, as {raw} or as the JSON string itself. */
export type VmTxRequest = { raw: Hex } | Hex;

/** POST /tx and POST /vm/tx: admission's verdict. A refusal is a 200 with accepted false and the reason. */
export interface SubmitVerdictView {
  accepted: boolean;
  id: Hex;
  reason?: string;
  /** Beside a refusal's reason: its stable code (docs/API.md "Refusal codes"). */
  code?: string;
}

/** POST /blocks body: a block as stored and gossiped. */
export type BlockBody = Block;

/** POST /blocks: what became of a gossiped block, and this node's head height after it. */
export interface BlockIntakeView {
  status: 'imported' | 'known' | 'stale' | 'orphan';
  height: number;
}

/** GET /contract/:addr: the verification metadata of a contract. */
export type ContractMetadataView = ContractMetadata;

interface ContractVerifySettings {
  /** "Token" or "Token.sol:Token". */
  contractName: string;
  /** Must be the bundled solc version when given (with or without "v" or "+commit…"). */
  compilerVersion?: string;
  optimizer?: { enabled: boolean; runs?: number };
  /** An EVM version name such as "cancun". */
  evmVersion?: string;
}

/** POST /contract/:addr/verify body: one file as `source` (named Contract.sol), or `sources` {file: content}. */
export type ContractVerifyRequest =
  | (ContractVerifySettings & { source: string })
  | (ContractVerifySettings & { sources: Record<string, string> });

/** POST /contract/:addr/verify: the contract matched its source. */
export interface ContractVerifyResult {
  verified: true;
  address: Address;
  name: string;
  compiler: string;
}
