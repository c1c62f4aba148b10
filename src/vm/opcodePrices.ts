import type { ParamsDict } from '@ethereumjs/common';
import { paramsEVM } from '@ethereumjs/evm';

/**
 * Cairn's opcode prices: Prague's gas table with five parameters raised.
 *
 * Gas is the block's execution budget (BLOCK_GAS_LIMIT = VM_MAX_GAS, docs/PROTOCOL.md), so a
 * million gas must buy about the same time whatever it is spent on. Ethereum's table prices
 * opcodes by their time in native clients; here the interpreter is JavaScript and state lives
 * in a trie on RocksDB, and a few operations cost far more time per gas than the rest.
 * Measured by bench/worstblock.ts on the reference machine (2-core EPYC, Node 20: a block of one
 * VM_MAX_GAS transaction looping on one operation, executed, flushed and hashed; the slowest of
 * two 5-run medians) at Ethereum's prices, with Cairn's faster EXP and SHA3 handlers
 * (src/vm/speedups.ts) and WebAssembly Keccak:
 *
 *   SHA3 of one word           12,900 gas/ms  (its fixed cost: 66 gas a loop turn, ~5 µs)
 *   SLOAD, cold slot           17,100 gas/ms  (a state-trie read through RocksDB, ~125 µs)
 *   BALANCE / EXTCODEHASH, cold account  20,500 gas/ms  (the same read, ~128 µs)
 *   EXP, 32-byte exponent      23,100 gas/ms  (~70 µs of BigInt arithmetic)
 *   SHA3 of 32 KB              26,900 gas/ms  (its cost per word)
 *   the jump loop (no change)  35,000–90,000 gas/ms (a Node process's JIT settles fast or slow)
 *
 * so one such transaction ran 0.2–0.4 s against the 200 ms budget. Each price below is raised
 * so that its class runs at least PRICE_TARGET_GAS_PER_MS (40,000, as for the precompiles:
 * src/vm/precompiles.ts). A cold slot and a cold account are the same trie read (a slot is a
 * record in the state trie: src/vm/stateAdapter.ts), so both cost the same. Warm accesses,
 * memory, calls and storage writes keep Ethereum's prices. A protocol constant: changing a
 * price changes execution (a fork).
 */
export const OPCODE_PRICES = {
  /** SHA3's fixed cost: 66 → 216 gas a loop turn of one word, ~55,000 gas/ms. */
  keccak256Gas: { eip: 1, ethereum: 30, cairn: 180 },
  /** SHA3's cost per 32-byte word: 32 KB at ~54,000 gas/ms. */
  keccak256WordGas: { eip: 1, ethereum: 6, cairn: 12 },
  /** EXP's cost per exponent byte (Spurious Dragon's 50): a 32-byte exponent at ~45,000 gas/ms. */
  expByteGas: { eip: 607, ethereum: 50, cairn: 100 },
  /** First access to an account in a transaction (BALANCE, EXTCODE*, CALL*): ~40,700 gas/ms. */
  coldaccountaccessGas: { eip: 2929, ethereum: 2600, cairn: 5200 },
  /** First read of a storage slot in a transaction (SLOAD, SSTORE): the same read, the same price: ~42,000 gas/ms. */
  coldsloadGas: { eip: 2929, ethereum: 2100, cairn: 5200 },
} as const;

/** The library's EVM parameter table with Cairn's prices: what every Cairn EVM and Common is created with. */
export const cairnEvmParams: ParamsDict = (() => {
  const table = structuredClone(paramsEVM) as ParamsDict;
  for (const [name, { eip, ethereum, cairn }] of Object.entries(OPCODE_PRICES)) {
    const entry = table[eip] as Record<string, number | bigint | null> | undefined;
    // A library upgrade that moves or changes a price must be looked at, not silently priced.
    if (entry?.[name] !== ethereum)
      throw new Error(`@ethereumjs/evm's ${name} under EIP ${eip} is not ${ethereum}: the price table changed`);
    entry[name] = cairn;
  }
  return table;
})();
