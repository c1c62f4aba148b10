import { afterAll, describe, expect, it } from 'vitest';
import { CompilerBusyError, SolcCompiler } from '../../src/contracts/compiler';

const input = (name: string) => ({
  language: 'Solidity',
  sources: {
    [`${name}.sol`]: {
      content:
        `// SPDX-License-Identifier: MIT\npragma solidity ^0.8.0;\ncontract ${name} ` +
        `{ function f() external pure returns (uint256) { return 7; } }`,
    },
  },
  settings: { outputSelection: { '*': { '*': ['evm.bytecode.object'] } } },
});

describe('SolcCompiler: one compile at a time from a bounded line', () => {
  const compiler = new SolcCompiler(120_000, 1);
  afterAll(() => compiler.close());

  it('runs compiles in order, refuses at once beyond the waiting bound, ' +
    'and takes work again when the line drains', async () => {
    const order: string[] = [];
    const first = compiler.compile(input('A')).then((r) => (order.push('A'), r));
    const second = compiler.compile(input('B')).then((r) => (order.push('B'), r));
    // One running, one waiting (the bound): a third is refused without waiting.
    await expect(compiler.compile(input('C'))).rejects.toBeInstanceOf(CompilerBusyError);
    const [a, b] = await Promise.all([first, second]);
    expect(order).toEqual(['A', 'B']);
    expect(a.output.contracts['A.sol'].A.evm.bytecode.object).toMatch(/^[0-9a-f]+$/);
    expect(b.output.contracts['B.sol'].B.evm.bytecode.object).toMatch(/^[0-9a-f]+$/);
    const c = await compiler.compile(input('C'));
    expect(c.output.contracts['C.sol'].C.evm.bytecode.object).toMatch(/^[0-9a-f]+$/);
  }, 120_000);
});
