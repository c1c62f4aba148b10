import { Transaction, Wallet } from 'ethers';
import { describe, expect, it } from 'vitest';
import { decodeEthTx } from '../../../src/chain/ethTx';
import { nativeSecp256k1 } from '../../../src/crypto/nativeSecp';

const wallet = new Wallet('0x' + '11'.repeat(32));
const base = { to: '0x' + '22'.repeat(20), value: 10n ** 18n + 5n, gasLimit: 21_000n, nonce: 7, chainId: 72020n };

describe('raw Ethereum transactions', () => {
  it('uses native libsecp256k1 recovery here', () => {
    expect(nativeSecp256k1).not.toBeNull();
  });

  for (const [name, fields] of [
    ['legacy EIP-155', { ...base, type: 0, gasPrice: 10_000_000_000n }],
    [
      'EIP-2930',
      {
        ...base,
        gasLimit: 30_000n,
        type: 1,
        gasPrice: 10_000_000_000n,
        accessList: [{ address: '0x' + '33'.repeat(20), storageKeys: ['0x' + '00'.repeat(32)] }] as {
          address: string;
          storageKeys: string[];
        }[],
      },
    ],
    ['EIP-1559', { ...base, type: 2, maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 0n }],
  ] as const) {
    it(`recovers the sender of a ${name} transaction`, async () => {
      const raw = await wallet.signTransaction(fields);
      const d = decodeEthTx(raw, 1, 72020);
      expect(d.ok).toBe(true);
      if (!d.ok) return;
      expect(d.tx.from).toBe(wallet.address.toLowerCase());
      expect(d.tx.id).toBe(Transaction.from(raw).hash);
      expect(d.tx).toMatchObject({
        type: 'VM_TRANSFER',
        nonce: 7,
        valueWei: (10n ** 18n + 5n).toString(),
        amount: '1000001',
      });
    });
  }

  it('refuses another chain id and a tampered signature', async () => {
    const other = await wallet.signTransaction({
      ...base,
      chainId: 1n,
      type: 2,
      maxFeePerGas: 1n,
      maxPriorityFeePerGas: 0n,
    });
    const d1 = decodeEthTx(other, 1, 72020);
    expect(d1.ok).toBe(false);
    const raw = await wallet.signTransaction({
      ...base,
      type: 2,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 0n,
    });
    const t = Transaction.from(raw);
    // A different r: either no point recovers, or a different sender does (not the wallet).
    const forged = Transaction.from({
      ...t.toJSON(),
      signature: { r: '0x' + '01'.repeat(32), s: t.signature!.s, v: t.signature!.v },
    }).serialized;
    const d2 = decodeEthTx(forged, 1, 72020);
    expect(d2.ok && d2.tx.from === wallet.address.toLowerCase()).toBe(false);
  });
});
