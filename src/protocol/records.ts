/**
 * Every key prefix of consensus records (ExecState.getRecord/putRecord), in one place.
 * A record key is its prefix followed by the record's own parts; no prefix may be a prefix
 * of another (test/unit/protocol/records.test.ts), so two modules can never write the same key.
 * Adding a record kind means one line here. Node-local storage buckets are a separate
 * registry (storage/buckets.ts): they are not consensus state.
 */
export const RECORD_PREFIX = {
  /** chain/supply: whole-chain counters (exact key). */
  supply: 'chain/supply',
  /** consensus/validators: the validator set (exact key). */
  validators: 'consensus/validators',
  /** consensus/schedule: the set that schedules slots, finality, liveness (exact key). */
  schedule: 'consensus/schedule',
  /** EVM: code by hash, storage slots by account generation, account generation. */
  vmCode: 'vm/code/',
  vmSlot: 'vm/s/',
  vmGeneration: 'vm/gen/',
  /** FT20: token, symbol → id, balance, allowance, blacklist entry, holder freeze. */
  token: 'tok/',
  tokenSymbol: 'toksym/',
  tokenBalance: 'tokbal/',
  tokenAllowance: 'tokalw/',
  tokenBlacklist: 'tokbl/',
  tokenFreeze: 'tokfrz/',
  /** NFT721: collection, symbol → id, item. */
  nftCollection: 'nftc/',
  nftSymbol: 'nftsym/',
  nftItem: 'nfti/',
  /** Name service: name → record. */
  name: 'name/',
  /** Governable parameters (exact key): protocol/governable.ts. */
  params: 'gov/params',
  /**
   * Governance: a voter's vote on a proposal (proposal id / voter), the proposal's voters (proposal id), treasury
   * spends (exact key).
   */
  govVote: 'gov/vote/',
  govVoters: 'gov/voters/',
  treasury: 'gov/treasury',
  /**
   * Staking: candidate record, the list of candidates (exact key), voter record, unbonding queue of an account,
   * addresses maturing at a height.
   */
  candidate: 'stk/cand/',
  candidates: 'stk/candidates',
  voter: 'stk/voter/',
  unbonding: 'stk/unb/',
  unbondingDue: 'stk/due/',
  slashed: 'slash/', // SLASH_DOUBLE_SIGN's nullifier: an offence already slashed (producer / offence height)
  /** Resources: stake whose energy capacity a lender lends a receiver (lender / receiver). */
  resourceDelegation: 'res/',
  /** Vesting: a schedule by its VESTING_CREATE transaction id. */
  vesting: 'vest/',
  /** Permissions: an account's multisig permission, and multisig operation proposals by id. */
  permission: 'perm/',
  multisig: 'msig/',
  /**
   * AI layer (modules/ai): oracle records and the oracle list, task side records (commits, reveals, bids, verdicts).
   */
  ai: 'ai/',
  /** Bridge (modules/bridge): committee, pools, breaker windows, replay nullifiers. */
  bridge: 'bridge/',
  /** On-chain machines: a machine's record, and the due-height index of their deadlines. */
  machine: 'mach/',
  machineDue: 'due/',
} as const;

export type RecordKind = keyof typeof RECORD_PREFIX;

/** The key of a record: its kind's prefix, then its parts joined by '/'. */
export const recordKey = (kind: RecordKind, ...parts: (string | number)[]): string =>
  RECORD_PREFIX[kind] + parts.join('/');
