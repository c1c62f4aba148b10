import type { TSchema } from '@sinclair/typebox';
import type { ChainEvent } from '../../protocol/events';
import type { ExecContext, HandlerOutcome, TxHandler } from '../../protocol/handler';
import type { Address, HybridTx, SignedTx, TxType } from '../../protocol/types';

/**
 * The one declaration of a transaction type (see README.md): what the node validates, what
 * it executes and what it costs, plus the metadata the SDK builder, the CLI and
 * docs/PROTOCOL.md derive from. Everything here is pure data and functions over a
 * transaction: importing an entry never loads the EVM, storage or the node.
 */

/** One rule of a data field: the shape it requires, and how the node and the SDK word its refusal. */
export interface Check {
  /** The JSON shape (TypeBox), compiled once with the entry. */
  readonly schema: TSchema;
  /** Node refusal, after "<TYPE> data.<key> " (the spec's reason strings). */
  readonly reason: string;
  /** SDK refusal, after the input field's name; `got` is the input as it prints. */
  readonly sdk: (got: string) => string;
}

/** A field of a transaction's `data` object, typed as `V` once checked and `I` as the SDK takes it. */
export interface Field<V = unknown, I = V> {
  /** Checked in order; the first broken one is the refusal. */
  readonly checks: readonly Check[];
  /** May be absent (then `read(undefined)` gives its default). */
  readonly optional?: boolean;
  /** The typed value of a value that passed the checks. */
  read(v: unknown): V;
  /**
   * SDK input → data value (bigint amounts to strings, cairn1… to 0x…); returns `undefined`
   * when the input cannot be one, refused with `refused`. Absent: the input is the value.
   */
  readonly input?: { convert(v: unknown): unknown; refused(got: string): string };
  /** A check that needs the envelope (e.g. data.from is not the sender): a full reason, or undefined. */
  refine?(tx: SignedTx, value: V): string | undefined;
  /** JSON type and meaning, for docs/PROTOCOL.md. */
  readonly doc: string;
  /** Type only: what the SDK's input of this field may be (never set). */
  readonly _input?: I;
}

/** A field that may be absent. */
export type OptionalField<V, I = V> = Field<V, I> & { readonly optional: true };

export type Fields = Record<string, Field<any, any>>;

/** The typed data of a field set. */
export type DataOf<F extends Fields> = { [K in keyof F]: F[K] extends Field<infer V, unknown> ? V : never };

/**
 * What the envelope's `to` carries, and the SDK input name that fills it:
 * - none: must be null;
 * - optional: null allowed (`explicit`: the SDK input must still be given, null included);
 * - required: an address, refused with "<TYPE> needs the <role> address in to".
 */
export type ToRule =
  | { readonly kind: 'none'; readonly reason?: string }
  | { readonly kind: 'optional'; readonly role: string; readonly input?: string; readonly explicit?: boolean }
  | {
      readonly kind: 'required';
      readonly role: string;
      readonly input?: string;
      readonly reason?: string;
      /** The SDK reads this input after the data fields (which refusal a multi-fault input gets). */
      readonly inputLast?: boolean;
    };

/** The `to` a handler sees: an Address where the rule requires one. */
export type ToOf<R extends ToRule> = R extends { kind: 'required' }
  ? Address
  : R extends { kind: 'optional' }
    ? Address | null
    : null;

/** The native `amount`: "0" (checked with the envelope), positive, one exact value, or anything. */
export type AmountRule =
  | { readonly kind: 'zero' }
  /** `input`: the SDK/CLI input that fills it (default "amount"; GOV_PROPOSE's is "deposit"). */
  | { readonly kind: 'positive'; readonly reason: string; readonly input?: string }
  | { readonly kind: 'exactly'; readonly value: bigint; readonly reason: string }
  | { readonly kind: 'any' };

/**
 * Which envelopes carry the type: hybrid only, both (the Ethereum form is checked from its raw bytes), or Ethereum
 * only.
 */
export type EnvelopeRule = 'hybrid' | 'both' | { readonly only: 'eth'; readonly reason: string };

/** How refusals of the data object itself are worded (the asset modules' style unless given). */
export interface DataMessages {
  notObject(type: TxType, required: readonly string[]): string;
  /** null: a missing field is refused by its own checks. */
  missing: ((type: TxType, key: string) => string) | null;
  unknown(type: TxType, key: string): string;
  field(type: TxType, key: string, reason: string): string;
  /** The `to` rule is checked after the data (VM types). */
  toLast?: boolean;
}

/** A rule across the checked data (e.g. supply "0" only when mintable). */
export interface DataRule<D> {
  broken(d: D): boolean;
  /** Node refusal (full sentence). */
  readonly reason: string;
  /** SDK refusal: the input field it names, and its text after that name. */
  readonly sdk: { readonly field: string; readonly message: string };
}

/** What a handler's `run` sees: the execution context, the typed `to`, and the events to append to. */
export interface RunCtx<R extends ToRule> extends ExecContext {
  readonly to: ToOf<R>;
  /** The events of a success, in execution order (discarded if the transaction fails). */
  readonly events: ChainEvent[];
}

/** How a CLI flag fills an input field (cli/commands/ maps each kind to its parser). */
export type CliFlagKind =
  | 'text' // a string, as typed
  | 'int' // a non-negative integer
  | 'address' // 0x… or cairn1…
  | 'token' // a token id, or a symbol looked up on the node
  | 'collection' // a collection id, or a symbol looked up on the node
  | 'switch' // boolean flag: true when present, absent otherwise
  | 'unless' // boolean flag: the field is false when present, true otherwise
  | 'clear' // boolean flag: the field is null when present (exclusive with the field's own flag)
  | 'coins' // native base units, a positive integer (the envelope amount, or a field of coins)
  | 'map' // repeatable <address>=<amount>: an object address → amount (VOTE's votes)
  | 'json'; // a path to a JSON file: its parsed content, as the field's SDK input (SLASH_DOUBLE_SIGN's evidence)

export interface CliFlag {
  /** Flag name without "--", or "<name>" for the positional argument. */
  readonly flag: string;
  /** The input field it fills (the builder's name: `to`, `spender`, `name`…; `a.b` fills field b of object a). */
  readonly field: string;
  readonly kind: CliFlagKind;
  /** Placeholder in usage and help ("<n>"); none for boolean flags. */
  readonly metavar?: string;
  readonly optional?: boolean;
  /** The value when the flag is absent (then it is optional). */
  readonly default?: number;
  /** Help text; lines after the first are indented under it. */
  readonly help: string;
}

export interface CliMeta {
  /** "token create": the group and the sub-command. */
  readonly command: string;
  /** Paragraph under the usage line. */
  readonly about: string;
  /** The line of the group's help (after the padded command). */
  readonly summary: string;
  readonly flags: readonly CliFlag[];
  /** Usage after the command, when not derived from the flags. */
  readonly usage?: string;
  /** Usage error when both or neither of a 'clear' flag and its pair are given. */
  readonly exclusive?: string;
  readonly example: string;
  /** What the sender must know once the node accepted the transaction (printed on stderr), from its `data`. */
  readonly acceptedNote?: (data: Record<string, unknown> | null) => string | undefined;
}

export interface TxSpec<T extends TxType, R extends ToRule, F extends Fields> {
  readonly type: T;
  /** docs/PROTOCOL.md's module column (the folder of modules/). */
  readonly module: string;
  /** One line for the types table of docs/PROTOCOL.md. */
  readonly summary: string;
  readonly envelope?: EnvelopeRule;
  readonly to: ToRule & R;
  readonly amount?: AmountRule;
  /** The `data` object's fields in declaration order; absent: data is not read. */
  readonly fields?: F;
  /** Order the fields are checked in, when it differs from their declaration. */
  readonly checkOrder?: readonly (keyof F & string)[];
  readonly messages?: DataMessages;
  /** Envelope rules checked after the data's keys and before its fields: a full reason, or undefined. */
  readonly rules?: readonly ((tx: SignedTx) => string | undefined)[];
  /** Rules across the checked fields, checked last. */
  readonly dataRules?: readonly DataRule<DataOf<F>>[];
  /**
   * Energy units a transaction costs, success or failure; or, for the VM types, the most it
   * may cost (from its gas limit: the charge is what `run` reports from the gas used) and how
   * docs/PROTOCOL.md says it.
   */
  readonly energy: bigint | { readonly most: (tx: SignedTx) => bigint; readonly doc: string };
  /** What the created asset is called when a transaction creates one (its id is assetId(tx.id)). */
  readonly creates?: string;
  /**
   * Accounts a transaction concerns beyond `from` and `to` (the address feed lists it for
   * them too): META_TX's user and recipient, a multisig's account and its operation's `to`.
   * Reads the admitted transaction's data; returns 0x addresses.
   */
  readonly parties?: (tx: SignedTx) => Address[];
  /**
   * Signed envelopes the transaction carries (META_TX's data.tx), whose signatures count as
   * its own: checked with its outer ones in the verify pool at admission and import, never on
   * the executing thread (applyTx trusts a caller that says so). Reads the admitted transaction's data.
   */
  readonly nested?: (tx: SignedTx) => HybridTx[];
  /** The state-dependent part: throws TxFailure(reason) to fail; appends its events to `c.events`. */
  run(c: RunCtx<R>, d: DataOf<F>): Promise<void | HandlerOutcome>;
  readonly cli?: CliMeta;
  /** What a CLI `--wait` adds to its answer from the included transaction's events. */
  readonly report?: (events: readonly ChainEvent[]) => Record<string, unknown>;
}

/** A declared type: its spec and the handler the node runs. */
export interface TxEntry<T extends TxType = TxType, R extends ToRule = ToRule, F extends Fields = Fields>
  extends TxSpec<T, R, F> {
  readonly handler: TxHandler & { type: T };
  /** The typed data of a transaction that passed `handler.validate` (what `run` receives). */
  readonly readData: (tx: SignedTx) => DataOf<F>;
}

/** Any entry, as the registry and its readers see it. */
export type AnyTxEntry = TxEntry<TxType, ToRule, any>;
