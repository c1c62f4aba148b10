import type { ParamsDict } from '@ethereumjs/common';
import { paramsEVM } from '@ethereumjs/evm';

/**
 * Cairn's opcode prices: Prague's gas table with the parameters below raised. A protocol constant:
 * changing a price changes execution (a fork).
 *
 * Gas is the block's execution budget (BLOCK_GAS_LIMIT = VM_MAX_GAS = 5,190,000, docs/PROTOCOL.md), so
 * a million gas must buy about the same time whatever it is spent on. Ethereum's table prices opcodes
 * by their time in native clients; here the interpreter is JavaScript (@ethereumjs/evm) and state lives
 * in a trie on RocksDB, and some operations cost far more time per gas than the rest. Each price below
 * is raised so that its class runs at least ~40,000 gas per CPU ms (as the precompiles:
 * src/vm/precompiles.ts), so a block of VM_MAX_GAS executes within the 200 ms budget (40 % of a 500 ms
 * slot); where the time was the library's and not the work's, a faster handler gives the same result
 * instead (src/vm/speedups.ts). Measured by bench/worstblock.ts on the reference machine (2-core EPYC,
 * Node 20, shared: a block of one VM_MAX_GAS transaction looping on one operation, executed, flushed
 * and hashed; CPU ms, the median of 3 runs); bench/worstblockSearch.ts searches random loops for worse.
 *
 *   class                                    issue 23's prices          now (bench/results.md)
 *                                            gas/ms   ms at 5.19 M      gas/ms   ms at 5.19 M
 *   a contract calling itself in a loop,
 *     0x5b6000600060006000305afa50600056        530      9,785           52,700       99
 *   the same with CALL / CALLCODE / DELEGATECALL   490–543  ≤ 10,599     49,200–74,300  70–106
 *   the same as init code (a codeless self)   3,400      1,525          148,800       35
 *   CALL / STATICCALL of a warm contract        606–659   8,565         53,700–69,500  75–97
 *   CALL of a cold contract with its own code   7,960       652           55,700       93
 *   CALL of an empty account / precompile 4   3,660–5,780  1,417        214,000+      24
 *   SSTORE: dirty / a no-op               5,100 / ~24,000  1,016 / ~215  46,800 / 40,900  111 / 127
 *   SLOAD of a warm slot                      12,500        414           51,700      100
 *   TSTORE / TLOAD                       21,300 / ~24,800  244 / ~209    57,300 / 100,700  91 / 52
 *   MLOAD (library: async gas, hex words)     23,100        225           58,700       88
 *   BLOCKHASH / BALANCE of a warm account  35,300 / 33,400  147 / 155    53,100 / 116,000  98 / 45
 *   CODECOPY of 32 KB past a short code (search)   589     8,813          (the copies now ≥ 229,000)
 *   CALLER / ADDRESS / ORIGIN (search)      ~20,000        ~260          119,200       44
 *   CREATE / CREATE2 of a new account     50,900–61,500   84–102        72,400–81,900  63–72
 *   LOGs, memory growth, RETURNDATACOPY, EXTCODECOPY: ≥ 44,000 before, ≥ 66,000 now
 *   (issue 23's classes: SHA3 of a word 12,900 → 53,200; cold SLOAD 17,100 → 64,300; cold BALANCE
 *   20,500 → 58,200; EXP 23,100 → 68,400; the jump loop 71,900.)
 *
 * A message frame costs ~250–300 µs of CPU here (the library builds a Message, an interpreter, a
 * journal checkpoint and an EVMResult per call, and the garbage collector follows), against Ethereum's
 * 100 gas for a warm call: one VM_MAX_GAS transaction of them ran 1.5–10 s. A cold slot and a cold
 * account are the same trie read (a slot is a record in the state trie: src/vm/stateAdapter.ts), so
 * both cost the same.
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
  /**
   * Every later access (SLOAD, BALANCE, EXTCODE*, the CALL family's access charge, a no-op SSTORE): a warm SLOAD
   * loop turn is ~10 µs (async handlers, slot keys as strings), 127 gas at Ethereum's price.
   */
  warmstoragereadGas: { eip: 2929, ethereum: 100, cairn: 600 },
  /** A message frame (issue 49): ~290 µs a call at worst, so 14,000 on top of the access charge, for each opcode. */
  callGas: { eip: 2929, ethereum: 0, cairn: 14_000 },
  staticcallGas: { eip: 2929, ethereum: 0, cairn: 14_000 },
  delegatecallGas: { eip: 2929, ethereum: 0, cairn: 14_000 },
  callcodeGas: { eip: 2929, ethereum: 0, cairn: 14_000 },
  /**
   * SSTORE's own fee, on top of its EIP-2200 price: every SSTORE reads the slot twice and writes it through the
   * adapter, ~20 µs even when it changes nothing (a no-op is priced as a warm read).
   */
  sstoreGas: { eip: 2929, ethereum: 0, cairn: 600 },
  /** SSTORE of a slot already written in the transaction: a trie write, ~30–50 µs a loop turn (with the fee above). */
  sstoreDirtyEIP2200Gas: { eip: 2929, ethereum: 100, cairn: 1_200 },
  /**
   * Used under Prague only for the refund of restoring a slot's original non-zero value (EIP-2929: reset − cold read −
   * warm read). Ethereum's 5,000 − 2,100 − 100 = 2,800 is the clean write (2,900) less a warm read; with Cairn's
   * 5,200 cold read it went negative. 8,200 − 5,200 − 600 = 2,400: the clean write less Cairn's warm read again.
   */
  sstoreResetGas: { eip: 1, ethereum: 5000, cairn: 8_200 },
  /** CREATE / CREATE2's fixed cost: a new account, its frame and trie writes, ~0.6–1.2 ms (27,700–74,000 gas/ms). */
  createGas: { eip: 1, ethereum: 32_000, cairn: 40_000 },
  /** TSTORE: ~6 µs a loop turn (a journaled map write). */
  tstoreGas: { eip: 1153, ethereum: 100, cairn: 300 },
  /** TLOAD: ~4.7 µs a loop turn (the key padded through a spread, the address and key as strings): 24,800 gas/ms. */
  tloadGas: { eip: 1153, ethereum: 100, cairn: 300 },
  /** BLOCKHASH: an async opcode, ~1.5 µs a loop turn of 52 gas. */
  blockhashGas: { eip: 1, ethereum: 20, cairn: 40 },
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
