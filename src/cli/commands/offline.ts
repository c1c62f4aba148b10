import { Value } from '@sinclair/typebox/value';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { bridgeCommitteeUpdate, bridgeIn } from '../../modules/bridge';
import { fullCommitteeRefusal } from '../../modules/bridge/committee';
import type { Hex } from '../../primitives/hex';
import type { CommitteeMember } from '../../protocol/bridge';
import { CHAIN_ID } from '../../protocol/params';
import {
  committeeDigest,
  deriveKeys,
  inboundDigest,
  memberOf,
  parseAddress,
  signAsMember,
  taskCommitment,
  type MemberSignature,
} from '../../sdk';
import {
  EXIT,
  json,
  parse,
  parsePositiveInt,
  parseSecret,
  str,
  usage,
  type CliIo,
  type Flags,
  type OptionDefs,
} from '../common';
import type { Command } from './context';

/**
 * The commands that compute here and send nothing: an AI commitment, a bridge committee
 * member's entry and its signatures over a deposit or a new committee.
 */

interface OfflineSpec {
  options: OptionDefs;
  run(values: Flags, io: CliIo): Promise<number>;
  help: string;
}

const OFFLINE: Record<string, OfflineSpec> = {};

OFFLINE['ai commitment'] = {
  options: {
    task: { type: 'string' },
    oracle: { type: 'string' },
    output: { type: 'string' },
    salt: { type: 'string' },
  },
  async run(values, io) {
    const need = (k: string) =>
      str(values[k]) ??
      usage(`missing --${k}: cairn ai commitment --task <id> --oracle <address> --output <text> --salt <text>`);
    const oracle = parseAddress(need('oracle')) ?? usage('--oracle must be an address (0x… or cairn1…)');
    const taskId = need('task');
    if (!/^0x[0-9a-fA-F]{64}$/.test(taskId)) usage('--task must be a task id (0x + 64 hex digits)');
    io.out(
      json({ commit: taskCommitment({ oracle, output: need('output'), salt: need('salt'), taskId: taskId as Hex }) }),
    );
    return EXIT.OK;
  },
  help: `Usage: cairn ai commitment --task <id> --oracle <address> --output <text> --salt <text>

Prints {commit}: the AI_COMMIT commitment, 0x + keccak-256 of the UTF-8 RFC 8785 JSON of
{"oracle", "output", "salt", "taskId"} (computed here, nothing is sent). Keep the output and
the salt: "cairn ai reveal" needs them.`,
};

OFFLINE['bridge member'] = {
  options: { secret: { type: 'string' } },
  async run(values, io) {
    io.out(json(memberOf(deriveKeys(parseSecret(str(values.secret), io.env)))));
    return EXIT.OK;
  },
  help: `Usage: cairn bridge member [--secret <hex>]

Prints {address, secp256k1, mldsa44}: your entry in a committee (the list a "cairn gov
propose --committee" file or a rotation holds). The secret is --secret or $CAIRN_SECRET.`,
};
OFFLINE['bridge attest'] = {
  options: {
    secret: { type: 'string' },
    'source-chain': { type: 'string' },
    'source-tx': { type: 'string' },
    asset: { type: 'string' },
    to: { type: 'string' },
    amount: { type: 'string' },
    committee: { type: 'string' },
    threshold: { type: 'string' },
    epoch: { type: 'string' },
    into: { type: 'string' },
    'chain-id': { type: 'string' },
  },
  async run(values, io) {
    const v = values;
    const keys = deriveKeys(parseSecret(str(v.secret), io.env));
    const chainId = parsePositiveInt('--chain-id', str(v['chain-id']) ?? String(CHAIN_ID));
    let digest: Uint8Array;
    if (str(v.committee) !== undefined) {
      const members = committeeMembers(await readJson('--committee', str(v.committee)!));
      const threshold = parsePositiveInt('--threshold', str(v.threshold) ?? usage('--committee needs --threshold <k>'));
      const epoch = parsePositiveInt(
        '--epoch',
        str(v.epoch) ?? usage("--committee needs --epoch <n>: the new committee's epoch (the current one + 1)"),
      );
      const refused = fullCommitteeRefusal(members, threshold);
      if (refused) usage(`--committee: ${refused.reason}`);
      digest = committeeDigest({ epoch, members, threshold }, chainId);
    } else {
      const need = (k: string) =>
        str(v[k]) ??
        usage(
          `missing --${k}: cairn bridge attest --source-chain <name> --source-tx <id> --asset ` +
            `native|<token id> --to <address> --amount <n>`,
        );
      const to = parseAddress(need('to')) ?? usage('--to must be an address (0x… or cairn1…)');
      const amount = need('amount');
      if (!/^[1-9][0-9]*$/.test(amount)) usage(`--amount must be a positive integer of base units, got "${amount}"`);
      const asset = need('asset');
      if (asset !== 'native' && !/^0x[0-9a-fA-F]{40}$/.test(asset))
        usage('--asset must be native or a token id (0x + 40 hex)');
      // What BRIDGE_IN would refuse is not worth signing: the same checks as its data fields.
      const checked = (flag: string, key: 'sourceChain' | 'sourceTx') => {
        const raw = need(flag);
        for (const c of bridgeIn.fields![key].checks)
          if (!Value.Check(c.schema, raw)) usage(`--${flag} ${c.reason}, got "${raw}"`);
        return raw;
      };
      digest = inboundDigest(
        {
          sourceChain: checked('source-chain', 'sourceChain'),
          sourceTx: checked('source-tx', 'sourceTx'),
          asset: asset === 'native' ? asset : asset.toLowerCase(),
          to,
          amount,
        },
        chainId,
      );
    }
    const sig = signAsMember(keys, digest);
    const into = str(v.into);
    if (into === undefined) {
      io.out(json(sig));
      return EXIT.OK;
    }
    const list = existsSync(into) ? ((await readJson('--into', into)) as MemberSignature[]) : [];
    if (!Array.isArray(list)) usage(`--into: ${into} does not hold a list of signatures`);
    await writeFile(into, `${JSON.stringify([...list.filter((x) => x.signer !== sig.signer), sig], null, 2)}\n`);
    io.out(json({ signer: sig.signer, into, signatures: list.filter((x) => x.signer !== sig.signer).length + 1 }));
    return EXIT.OK;
  },
  help:
    `Usage: cairn bridge attest [--secret <hex>] --source-chain <name> --source-tx <id> --asset ` +
    `native|<token id> --to <address> --amount <n> [--chain-id <n>] [--into <sigs.json>]
       cairn bridge attest [--secret <hex>] --committee <members.json> --threshold <k> --epoch <n> ` +
    `[--chain-id <n>] [--into <sigs.json>]

Signs, as a committee member (offline, nothing is sent), an inbound deposit's digest or a
new committee's digest, with both secp256k1 and ML-DSA-44: prints {signer, secp256k1,
mldsa44}, or with --into adds it to that JSON list (replacing your earlier one), ready for
"cairn bridge in --signatures" or "cairn bridge rotate --signatures". The digests are in
docs/PROTOCOL.md "Bridge"; each binds the Cairn chain it is for: --chain-id, the chain
id of its chain specification (GET /status chainId; default 72020, the development
network). The secret is --secret or $CAIRN_SECRET.`,
};

/**
 * A members file as "cairn bridge rotate --members" sends it: the same shape check, and the
 * members as the node reads them (lower-case hex), so the digest signed here is the one the
 * rotation is checked against whatever case the file spells its keys in.
 */
function committeeMembers(v: unknown): CommitteeMember[] {
  const field = bridgeCommitteeUpdate.fields!.members;
  for (const c of field.checks) if (!Value.Check(c.schema, v)) usage(`--committee ${c.reason}`);
  return field.read(v);
}

/** A JSON file's content, or a usage error naming the flag. */
async function readJson(flag: string, file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    return usage(`${flag}: cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    return usage(`${flag}: ${file} is not JSON: ${(e as Error).message}`);
  }
}

/** Offline sub-commands by group, in help order. */
export const OFFLINE_SUBS: Record<string, readonly string[]> = { ai: ['commitment'], bridge: ['member', 'attest'] };

export const OFFLINE_COMMANDS: Record<string, Command> = Object.fromEntries(
  Object.entries(OFFLINE).map(([k, spec]) => [
    k,
    async (args: string[], io: CliIo) => {
      const { values } = parse(k, args, spec.options, 0);
      if (values.help) {
        io.out(spec.help);
        return EXIT.OK;
      }
      return spec.run(values, io);
    },
  ]),
);
export const OFFLINE_HELP: Record<string, string> = Object.fromEntries(
  Object.entries(OFFLINE).map(([k, s]) => [k, s.help]),
);
