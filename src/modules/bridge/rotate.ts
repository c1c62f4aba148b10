import { installCommittee, type CommitteeMember, type CommitteeRecord } from '../../protocol/bridge';
import { TxFailure } from '../../protocol/handler';
import { defineTx } from '../tx/define';
import { committeeDigest, fullCommitteeRefusal, quorumRefusal } from './committee';
import { membersField, signaturesField, thresholdField } from './fields';
import { requireCommittee } from './transfer';

/** The digest a rotation's signatures are over: the new committee as the next epoch. */
export const rotationOf = (
  c: CommitteeRecord,
  d: { members: CommitteeMember[]; threshold: number },
  chainId: number,
): Uint8Array => committeeDigest({ epoch: c.epoch + 1, members: d.members, threshold: d.threshold }, chainId);

/**
 * BRIDGE_COMMITTEE_UPDATE: the committee in office hands over to `data.members` with
 * `data.threshold`, on a quorum of its own hybrid signatures over the committee digest of the
 * next epoch (so an old rotation cannot be replayed). The first committee comes from a
 * governance proposal (GOV_PROPOSE data.committee), which can also replace a committee that
 * lost its keys.
 */
export const bridgeCommitteeUpdate = defineTx({
  type: 'BRIDGE_COMMITTEE_UPDATE',
  module: 'bridge',
  summary:
    "rotates the bridge committee to data.members / data.threshold on a quorum of the current committee's " +
    "hybrid signatures over the next epoch's committee digest",
  to: { kind: 'none' },
  fields: {
    members: membersField("[{address, secp256k1, mldsa44}]: the new members' addresses and hybrid public keys (hex)"),
    threshold: thresholdField('distinct member signatures the new committee needs: more than half its members'),
    signatures: signaturesField(
      "[{signer, secp256k1, mldsa44}]: the current members' signatures of the committee digest",
    ),
  },
  dataRules: [
    {
      broken: (d) => fullCommitteeRefusal(d.members, d.threshold) !== undefined,
      reason:
        'BRIDGE_COMMITTEE_UPDATE data.members and data.threshold are not a committee: distinct members whose ' +
        'addresses their secp256k1 keys control, threshold more than half of them and at most all',
      sdk: {
        field: 'members',
        message:
          'are not a committee: distinct members whose addresses their secp256k1 keys control, threshold more ' +
          'than half of them and at most all',
      },
    },
  ],
  energy: 3_000n,
  cli: {
    command: 'bridge rotate',
    about: `Hands the bridge over to a new committee (--members, --threshold), with the current
members' signatures over the next epoch's committee digest ("cairn bridge attest --committee"
makes one member's).`,
    summary: '--members <file.json> --threshold <k> --signatures <file.json>',
    flags: [
      {
        flag: 'members',
        field: 'members',
        kind: 'json',
        metavar: '<file.json>',
        help: 'the new members: [{address, secp256k1, mldsa44}]',
      },
      {
        flag: 'threshold',
        field: 'threshold',
        kind: 'int',
        metavar: '<k>',
        help: 'signatures the new committee needs (more than half)',
      },
      {
        flag: 'signatures',
        field: 'signatures',
        kind: 'json',
        metavar: '<file.json>',
        help: "the current members' signatures: [{signer, secp256k1, mldsa44}]",
      },
    ],
    example: 'cairn bridge rotate --members members.json --threshold 3 --signatures sigs.json --wait included',
  },
  async run({ state, height, network }, d) {
    const c = await requireCommittee(state);
    const refused = quorumRefusal(c, rotationOf(c, d, network.chainId), d.signatures, 'BRIDGE_COMMITTEE_UPDATE');
    if (refused) throw new TxFailure(refused);
    await installCommittee(state, d.members, d.threshold, height);
  },
});
