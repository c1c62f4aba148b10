import fc from 'fast-check';
import { initialTransition, transition } from 'xstate';
import { describe, expect, it } from 'vitest';
import { machineGraph } from '../../../../src/machines/graph';
import { loadInstance } from '../../../../src/machines/instance';
import { stateName } from '../../../../src/machines/record';
import {
  PERMISSION_CHANGE_STATES,
  permissionChangeDef,
  permissionChangeMachine,
  type PermissionChangeEvent,
  type PermissionChangeInput,
} from '../../../../src/modules/permissions/machine';
import { getMultisig } from '../../../../src/modules/permissions';
import { REGISTRY } from '../../../../src/modules/registry';
import { AUTHORISABLE, getPermission, governedRefusal, VALUE_MOVING } from '../../../../src/protocol/permissions';
import { COIN } from '../../../../src/primitives/amount';
import type { Hex } from '../../../../src/primitives/hex';
import type { Address, SignedTx } from '../../../../src/protocol/types';
import { Wallet } from 'ethers';
import { applyTx } from '../../../../src/chain/applyTx';
import { decodeEthTx } from '../../../../src/chain/ethTx';
import { CHAIN_ID, GAS_PRICE_WEI } from '../../../../src/protocol/params';
import { DEV_NETWORK } from '../../../../src/chain/devnet';
import { refusal } from '../../../helpers/assetHarness';
import { EconWorld, U1, U2, U3, U4, V0 } from '../../../helpers/econWorld';
import { walkMachine } from '../../../helpers/machineWalk';

const c = (n: number | bigint) => String(BigInt(n) * COIN);
/** U1 governed 2-of-3 by U2, U3, U4 for TRANSFER; changes wait 3 blocks. */
const TWO_OF_THREE = { keys: { [U2]: 1, [U3]: 1, [U4]: 1 }, threshold: 2, operations: ['TRANSFER'], timelockBlocks: 3 };

async function governed(): Promise<EconWorld> {
  const w = await EconWorld.create();
  await w.ok('PERMISSION_UPDATE', U1, { data: { permission: TWO_OF_THREE } });
  return w;
}

async function propose(w: EconWorld, from: Address, op: unknown, account: Address = U1): Promise<Hex> {
  const tx = await w.tx('MULTISIG_PROPOSE', from, { data: { account, op } });
  const [r] = await w.block([tx]);
  expect(r.error).toBeUndefined();
  return tx.id;
}

async function proposeChange(w: EconWorld, from: Address, change: unknown): Promise<Hex> {
  const tx = await w.tx('PERMISSION_PROPOSE', from, { data: { account: U1, change } });
  const [r] = await w.block([tx]);
  expect(r.error).toBeUndefined();
  return tx.id;
}
const changeStatus = async (w: EconWorld, id: Hex) =>
  stateName((await loadInstance(w.state, permissionChangeDef, id))!.value);

describe('PERMISSION_UPDATE', () => {
  it('installs the permission; the account key can no longer send what it governs, nor update it', async () => {
    const w = await governed();
    expect(await getPermission(w.state, U1)).toEqual({
      ...TWO_OF_THREE,
      keys: { [U2]: 1, [U3]: 1, [U4]: 1 },
      version: 1,
    });
    expect((await w.account(U1)).permissioned).toBe(true);
    await w.fails(
      'TRANSFER',
      U1,
      { to: U2, amount: c(1) },
      `TRANSFER from ${U1} needs its multisig permission (MULTISIG_PROPOSE)`,
    );
    await w.fails(
      'PERMISSION_UPDATE',
      U1,
      { data: { permission: TWO_OF_THREE } },
      'the account has a permission: change it with PERMISSION_PROPOSE',
    );
    await w.ok('STAKE', U1, { amount: c(1) }); // not governed
  });

  it('refuses malformed permissions before they reach a block', () => {
    const p = (permission: unknown) => refusal('PERMISSION_UPDATE', { data: { permission } });
    expect(p(TWO_OF_THREE)).toBeUndefined();
    expect(p({ ...TWO_OF_THREE, threshold: 4 })).toBe(
      'PERMISSION_UPDATE data.permission threshold exceeds the sum of the key weights',
    );
    expect(p({ ...TWO_OF_THREE, keys: { nope: 1 } })).toBe(
      'PERMISSION_UPDATE data.permission has a key that is not an address (0x… or cairn1…)',
    );
    for (const bad of [
      { ...TWO_OF_THREE, operations: ['VM_CALL'] },
      { ...TWO_OF_THREE, operations: ['TRANSFER', 'TRANSFER'] },
      { ...TWO_OF_THREE, keys: {} },
      { ...TWO_OF_THREE, keys: { [U2]: 101 } },
      { ...TWO_OF_THREE, timelockBlocks: 0 },
    ]) {
      expect(p(bad)).toMatch(
        /^PERMISSION_UPDATE data\.permission must be \{keys, threshold, operations, timelockBlocks\}/,
      );
    }
  });
});

describe("a permission governs every path that moves the account's value", () => {
  const wallet = new Wallet('0x' + '11'.repeat(32));
  const W = wallet.address.toLowerCase() as Address;
  const eth = async (w: EconWorld, fields: { to?: string; value?: bigint; data?: string }) => {
    const raw = await wallet.signTransaction({
      type: 2,
      chainId: BigInt(CHAIN_ID),
      nonce: (await w.account(W)).nonce,
      gasLimit: 100_000n,
      maxFeePerGas: GAS_PRICE_WEI,
      maxPriorityFeePerGas: 0n,
      ...fields,
    });
    const d = decodeEthTx(raw, 1e9, CHAIN_ID);
    if (!d.ok) throw new Error(d.error);
    return d.tx;
  };
  /** W (a real secp256k1 key) holding 100 coins, governed 2-of-2 by U2, U3 for `operations`. */
  async function walletWorld(operations: string[]): Promise<EconWorld> {
    const w = await EconWorld.create();
    await w.ok('TRANSFER', U2, { to: W, amount: c(100) });
    await w.ok('PERMISSION_UPDATE', W, {
      data: { permission: { keys: { [U2]: 1, [U3]: 1 }, threshold: 2, operations, timelockBlocks: 3 } },
    });
    return w;
  }
  const included = async (w: EconWorld, tx: SignedTx) => {
    const v = await applyTx(w.state, tx, {
      height: ++w.height,
      timestamp: w.height * 1000,
      producer: V0,
      network: DEV_NETWORK,
    });
    if (v.kind !== 'applied') throw new Error(`not applied: ${v.refusal.reason}`);
    return v.result;
  };

  it('refuses every Ethereum-envelope transaction when it governs a value-moving type; the coins stay', async () => {
    expect(VALUE_MOVING).toEqual(['TRANSFER', 'TOKEN_TRANSFER', 'TOKEN_APPROVE', 'NFT_TRANSFER', 'NAME_TRANSFER']);
    for (const op of VALUE_MOVING) {
      const w = await walletWorld([op]);
      const reason =
        `Ethereum-envelope transactions from ${W} are refused: its permission governs ${op} ` +
        `(value moves only through MULTISIG_PROPOSE)`;
      const before = (await w.account(U4)).balance;
      for (const fields of [
        { to: U4, value: 50n * 10n ** 18n },
        { to: U4, value: 0n, data: '0x01' },
        { value: 0n, data: '0x00' },
      ]) {
        const tx = await eth(w, fields);
        expect((await governedRefusal(w.state, W, tx))?.reason).toBe(reason); // what admission asks
        expect(await included(w, tx)).toMatchObject({ status: 'failed', error: reason });
      }
      expect((await w.account(U4)).balance).toBe(before);
    }
  });

  it(
    'refuses a hybrid VM transaction carrying value when it governs TRANSFER; leaves the rest to the ' +
      "account's key",
    async () => {
      const w = await walletWorld(['TRANSFER']);
      await w.fails(
        'VM_CALL',
        W,
        { to: U4, amount: c(1), data: { input: '0x', gasLimit: 50_000 } },
        `VM_CALL from ${W} sends value, and its permission governs TRANSFER (MULTISIG_PROPOSE)`,
      );
      await w.fails(
        'VM_DEPLOY',
        W,
        { amount: c(1), data: { input: '0x00', gasLimit: 100_000 } },
        `VM_DEPLOY from ${W} sends value, and its permission governs TRANSFER (MULTISIG_PROPOSE)`,
      );
      expect(
        await governedRefusal(
          w.state,
          W,
          await w.tx('VM_CALL', W, { to: U4, data: { input: '0x', gasLimit: 50_000 } }),
        ),
      ).toBeUndefined();
      // A permission over what the EVM cannot move (staking) leaves both envelopes to the key.
      const s = await walletWorld(['STAKE', 'VOTE']);
      expect((await included(s, await eth(s, { to: U4, value: 10n ** 18n }))).status).toBe('success');
      // An ordinary account is never read for a permission.
      expect(await governedRefusal(w.state, U4, await eth(w, { to: U4, value: 1n }))).toBeUndefined();
    },
  );
});

describe('MULTISIG_PROPOSE / MULTISIG_APPROVE', () => {
  it('runs the operation as the account once the approvals reach the threshold, once', async () => {
    const w = await governed();
    const before = (await w.account(U1)).balance;
    const to = (await w.account(V0)).balance;
    const id = await propose(w, U2, { type: 'TRANSFER', to: V0, amount: c(5) });
    expect((await w.account(U1)).balance).toBe(before);
    await w.fails(
      'MULTISIG_APPROVE',
      U2,
      { data: { proposalId: id } },
      `${U2} already approved multisig proposal ${id}`,
    );
    const r = await w.ok('MULTISIG_APPROVE', U3, { data: { proposalId: id } });
    expect((await w.account(U1)).balance).toBe(before - 5n * COIN);
    expect((await w.account(V0)).balance - to).toBeGreaterThanOrEqual(5n * COIN); // plus its block rewards
    expect(BigInt(r.energyUsed) + BigInt(r.burned)).toBe(300n + 100n); // approval + the TRANSFER's own energy
    expect(await getMultisig(w.state, id)).toMatchObject({ approvals: [U2, U3], weight: 2, executedAt: w.height });
    await w.fails('MULTISIG_APPROVE', U4, { data: { proposalId: id } }, `multisig proposal ${id} was already executed`);
    expect((await w.account(U1)).nonce).toBe(1); // the account's own nonce is untouched (only its PERMISSION_UPDATE)
  });

  it('refuses strangers, ungoverned operations, unknown proposals; a failing operation records nothing', async () => {
    const w = await governed();
    await w.fails(
      'MULTISIG_PROPOSE',
      V0,
      { data: { account: U1, op: { type: 'TRANSFER', to: V0, amount: c(1) } } },
      `${V0} holds no key of the permission of ${U1}`,
    );
    await w.fails(
      'MULTISIG_PROPOSE',
      U2,
      { data: { account: U3, op: { type: 'TRANSFER', to: V0, amount: c(1) } } },
      `account ${U3} has no permission`,
    );
    await w.fails(
      'MULTISIG_PROPOSE',
      U2,
      { data: { account: U1, op: { type: 'STAKE', to: null, amount: c(1) } } },
      `the permission of ${U1} does not authorise STAKE`,
    );
    const nope = `0x${'ab'.repeat(32)}`;
    await w.fails('MULTISIG_APPROVE', U3, { data: { proposalId: nope } }, `multisig proposal ${nope} does not exist`);
    const id = await propose(w, U2, { type: 'TRANSFER', to: V0, amount: c(1_000_000) });
    await w.fails(
      'MULTISIG_APPROVE',
      U3,
      { data: { proposalId: id } },
      'the approved operation failed: insufficient balance',
    );
    expect(await getMultisig(w.state, id)).toMatchObject({ approvals: [U2], weight: 1, executedAt: null });
  });

  it('expires after the approval window', async () => {
    const w = await governed();
    const id = await propose(w, U2, { type: 'TRANSFER', to: V0, amount: c(1) });
    const p = (await getMultisig(w.state, id))!;
    w.height = p.expiresAt; // the next block is past the window
    await w.fails(
      'MULTISIG_APPROVE',
      U3,
      { data: { proposalId: id } },
      `multisig proposal ${id} expired at height ${p.expiresAt}`,
    );
  });

  it("checks the operation by its own type's rules at admission", () => {
    const op = (o: unknown) => refusal('MULTISIG_PROPOSE', { data: { account: U1, op: o } });
    expect(op({ type: 'TRANSFER', to: V0, amount: '5' })).toBeUndefined();
    expect(op({ type: 'TRANSFER', to: null, amount: '5' })).toBe(
      'MULTISIG_PROPOSE data.op: TRANSFER needs a destination',
    );
    expect(op({ type: 'VM_CALL', to: V0, amount: '5' })).toMatch(
      /^MULTISIG_PROPOSE data\.op must be \{type, to, amount, data\?\}/,
    );
  });

  it('has every authorisable type registered', () => {
    for (const t of AUTHORISABLE) expect(REGISTRY[t], t).toBeDefined();
  });
});

describe('PERMISSION_PROPOSE / APPROVE / VETO', () => {
  it(
    'applies an approved change after the timelock; ' + 'operations proposed under the old permission are void',
    async () => {
      const w = await governed();
      const old = await propose(w, U2, { type: 'TRANSFER', to: V0, amount: c(1) });
      const next = { keys: { [U2]: 1, [U3]: 1 }, threshold: 1, operations: ['STAKE', 'TRANSFER'], timelockBlocks: 2 };
      const id = await proposeChange(w, U2, next);
      expect(await changeStatus(w, id)).toBe('PENDING');
      await w.fails(
        'PERMISSION_APPROVE',
        U2,
        { data: { changeId: id } },
        `${U2} already approved permission change ${id}`,
      );
      await w.ok('PERMISSION_APPROVE', U3, { data: { changeId: id } });
      const at = w.height + 3; // the current permission's timelock
      expect(await changeStatus(w, id)).toBe('QUEUED');
      await w.until(at - 1);
      expect((await getPermission(w.state, U1))!.version).toBe(1);
      await w.block();
      expect(await changeStatus(w, id)).toBe('APPLIED');
      expect(await getPermission(w.state, U1)).toEqual({ ...next, version: 2 });
      await w.fails(
        'MULTISIG_APPROVE',
        U3,
        { data: { proposalId: old } },
        `the permission of ${U1} changed since multisig proposal ${old} was made`,
      );
      await w.fails(
        'PERMISSION_APPROVE',
        U4,
        { data: { changeId: id } },
        `${U4} holds no key of the permission of ${U1}`,
      );
    },
  );

  it('one key holder vetoes a change in its timelock; removal clears the flag', async () => {
    const w = await governed();
    const id = await proposeChange(w, U2, { remove: true });
    await w.ok('PERMISSION_APPROVE', U3, { data: { changeId: id } });
    await w.ok('PERMISSION_VETO', U4, { data: { changeId: id } });
    expect(await changeStatus(w, id)).toBe('VETOED');
    await w.fails(
      'PERMISSION_VETO',
      U4,
      { data: { changeId: id } },
      `permissionChange ${id} in state VETOED does not take VETO`,
    );
    const again = await proposeChange(w, U3, { remove: true });
    await w.ok('PERMISSION_APPROVE', U4, { data: { changeId: again } });
    await w.until(w.height + 3);
    expect(await changeStatus(w, again)).toBe('APPLIED');
    expect(await getPermission(w.state, U1)).toBeUndefined();
    expect((await w.account(U1)).permissioned).toBe(false);
    await w.ok('TRANSFER', U1, { to: U2, amount: c(1) });
  });

  it('refuses a change of an account without permission, and an unknown change', async () => {
    const w = await EconWorld.create();
    await w.fails(
      'PERMISSION_PROPOSE',
      U2,
      { data: { account: U1, change: { remove: true } } },
      `account ${U1} has no permission`,
    );
    const nope = `0x${'cd'.repeat(32)}`;
    await w.fails('PERMISSION_VETO', U2, { data: { changeId: nope } }, `permission change ${nope} does not exist`);
    expect(refusal('PERMISSION_PROPOSE', { data: { account: U1, change: { remove: false } } })).toMatch(
      /^PERMISSION_PROPOSE data\.change must be \{remove: true\} or a permission \{keys/,
    );
  });
});

const INPUT: PermissionChangeInput = {
  account: U1,
  change: null,
  proposer: U2,
  threshold: 2,
  timelock: 3,
  baseVersion: 1,
  createdAt: 1,
  expiresAt: 50,
};
const EVENTS: PermissionChangeEvent[] = [
  { type: 'APPROVE', key: U2, weight: 1, height: 2 },
  { type: 'APPROVE', key: U3, weight: 1, height: 3 },
  { type: 'APPROVE', key: U4, weight: 2, height: 3 },
  { type: 'VETO', key: U3 },
  { type: 'DEADLINE', height: 6 },
  { type: 'DEADLINE', height: 50 },
  { type: 'APPLY_FAILED', reason: 'x' },
];

describe('the permission-change machine', () => {
  it('reaches every state, and can() agrees with transition everywhere', () => {
    const [start] = initialTransition(permissionChangeMachine, INPUT);
    const walk = walkMachine(permissionChangeMachine, start, () => EVENTS, 5);
    expect([...walk.states].sort()).toEqual([...PERMISSION_CHANGE_STATES].sort());
    expect(walk.disagreements).toEqual([]);
  });

  it('only ever makes the moves of its graph; a key approves once; queued means the threshold was met', () => {
    const legal = new Set(machineGraph(permissionChangeMachine).transitions.map((t) => `${t.from}>${t.to}`));
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...EVENTS), { maxLength: 12 }), (events) => {
        let [s] = initialTransition(permissionChangeMachine, INPUT);
        for (const e of events) {
          if (!s.can(e)) continue;
          const from = stateName(s.value);
          [s] = transition(permissionChangeMachine, s, e);
          expect(legal.has(`${from}>${stateName(s.value)}`)).toBe(true);
          expect(new Set(s.context.approvals).size).toBe(s.context.approvals.length);
          if (s.matches('QUEUED')) expect(s.context.weight).toBeGreaterThanOrEqual(s.context.threshold);
        }
      }),
      { numRuns: 300 },
    );
  });
});
