import type { AnyStateMachine } from 'xstate';
import { mermaidDiagram } from '../machines/mermaid';
import { PARAMS, type ParamSpec } from '../protocol/governable';
import type { RefusalCatalog } from '../protocol/refusal';
import type { AnyTxEntry, AmountRule, EnvelopeRule, Fields, ToRule } from './tx/entry';

/**
 * The types section of docs/PROTOCOL.md, rendered from the registry entries (pure: the
 * writer is scripts/docs-types.ts, `npm run docs:types`; a test fails when the committed
 * doc differs). It lives between the two marker comments below.
 */

export const DOC_BEGIN =
  '<!-- BEGIN GENERATED: transaction types (npm run docs:types, from src/modules/registry.ts) -->';
export const DOC_END = '<!-- END GENERATED: transaction types -->';

const code = (s: string) => `\`${s}\``;
const cell = (s: string) => s.replace(/\|/g, '\\|');
const thousands = (n: bigint) => n.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');

const fieldsOf = (e: AnyTxEntry): [string, Fields[string]][] => Object.entries((e.fields ?? {}) as Fields);

const envelopeText = (e: EnvelopeRule): string =>
  e === 'hybrid' ? 'hybrid' : e === 'both' ? 'hybrid or Ethereum' : 'Ethereum only';
const toText = (r: ToRule): string =>
  r.kind === 'none' ? 'null' : r.kind === 'optional' ? `${r.role} or null` : r.role;
const amountText = (a: AmountRule): string =>
  a.kind === 'zero'
    ? code('"0"')
    : a.kind === 'positive'
      ? '> 0'
      : a.kind === 'exactly'
        ? `exactly ${thousands(a.value)}`
        : 'any (value sent)';

function typesTable(entries: readonly AnyTxEntry[]): string {
  const rows = entries.map((e) => {
    const fields = fieldsOf(e).map(([k, f]) => code(f.optional ? `${k}?` : k));
    return (
      `| ${code(e.type)} | ${e.module} | ${envelopeText(e.envelope ?? 'hybrid')} | ${toText(e.to)} ` +
      `| ${amountText(e.amount ?? { kind: 'zero' })} | ${fields.join(', ') || 'not read'} ` +
      `| ${cell(e.summary)} |`
    );
  });
  return [
    '| type | module | envelope | `to` | `amount` | `data` | what it does |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** One row per distinct field (key and rule), with the types that have it. */
function fieldsTable(entries: readonly AnyTxEntry[]): string {
  const rows = new Map<string, { key: string; doc: string; types: string[] }>();
  for (const e of entries) {
    for (const [key, f] of fieldsOf(e)) {
      const id = `${key}\n${f.doc}`;
      const row = rows.get(id) ?? { key, doc: f.doc, types: [] as string[] };
      row.types.push(e.type);
      rows.set(id, row);
    }
  }
  return [
    '| field | rule | types |',
    '|---|---|---|',
    ...[...rows.values()].map((r) => `| ${code(r.key)} | ${cell(r.doc)} | ${r.types.join(', ')} |`),
  ].join('\n');
}

function energyTable(entries: readonly AnyTxEntry[]): string {
  const rows = entries.map(
    (e) => `| ${code(e.type)} | ${typeof e.energy === 'bigint' ? thousands(e.energy) : cell(e.energy.doc)} |`,
  );
  return ['| type | energy |', '|---|---|', ...rows].join('\n');
}

export function typesSection(entries: readonly AnyTxEntry[]): string {
  return `${DOC_BEGIN}
The node implements these ${entries.length} types (the keys of the registry, \`src/modules/registry.ts\`: \`TX_TYPES\`;
the CLI's \`--type\` takes exactly this list). Any other name of the protocol's catalogue
(\`src/protocol/types.ts\`) is refused as \`unknown transaction type\`.

${typesTable(entries)}

Data fields (\`?\` marks an optional one):

${fieldsTable(entries)}

Energy per type, charged whether the transaction succeeds or fails:

${energyTable(entries)}
${DOC_END}`;
}

/** `doc` with the section between `begin` and `end` replaced by `section` (which carries the markers). */
function withSection(doc: string, begin: string, end: string, section: string): string {
  const start = doc.indexOf(begin);
  const stop = doc.indexOf(end);
  if (start < 0 || stop < start) throw new Error(`docs/PROTOCOL.md has no markers ${begin} … ${end}`);
  return doc.slice(0, start) + section + doc.slice(stop + end.length);
}

/** `doc` with its generated types section replaced by `section`. */
export const withTypesSection = (doc: string, section: string): string => withSection(doc, DOC_BEGIN, DOC_END, section);

export const PARAMS_BEGIN =
  '<!-- BEGIN GENERATED: governable parameters (npm run docs:types, from src/protocol/governable.ts) -->';
export const PARAMS_END = '<!-- END GENERATED: governable parameters -->';

const paramValue = (v: bigint, s: ParamSpec): string =>
  s.unit === 'base units'
    ? v > 0n && v % 1_000_000n === 0n
      ? `${thousands(v / 1_000_000n)} coin${v === 1_000_000n ? '' : 's'}`
      : `${thousands(v)} base units`
    : s.unit === 'count'
      ? thousands(v)
      : s.unit === 'gas'
        ? `${thousands(v)} gas`
        : `${thousands(v)} ${s.unit === 'blocks' ? 'blocks' : 'bps'}`;

/** The governable parameters table: default, the development network's value, bounds, meaning. */
export function paramsSection(dev: Readonly<Record<string, string>>): string {
  const rows = (Object.entries(PARAMS) as [string, ParamSpec][]).map(
    ([n, s]) =>
      `| ${code(n)} | ${paramValue(s.default, s)} ` +
      `| ${dev[n] !== undefined ? paramValue(BigInt(dev[n]), s) : 'same'} | ${paramValue(s.min, s)} ` +
      `.. ${paramValue(s.max, s)} | ${cell(s.doc)} |`,
  );
  return [
    PARAMS_BEGIN,
    '| parameter | default | development network | bounds | meaning |',
    '|---|---|---|---|---|',
    ...rows,
    PARAMS_END,
  ].join('\n');
}

export const withParamsSection = (doc: string, section: string): string =>
  withSection(doc, PARAMS_BEGIN, PARAMS_END, section);

export const MACHINES_BEGIN =
  '<!-- BEGIN GENERATED: state machines (npm run docs:types, from the machine definitions) -->';
export const MACHINES_END = '<!-- END GENERATED: state machines -->';

/** The machines the docs draw, each under a heading naming where it lives. */
export function machinesSection(
  machines: readonly { title: string; source: string; machine: AnyStateMachine }[],
): string {
  const parts = machines.map(
    (m) => `#### ${m.title} (\`${m.source}\`)\n\n\`\`\`mermaid\n${mermaidDiagram(m.machine)}\n\`\`\``,
  );
  return [MACHINES_BEGIN, ...parts, MACHINES_END].join('\n\n');
}
export const withMachinesSection = (doc: string, section: string): string =>
  withSection(doc, MACHINES_BEGIN, MACHINES_END, section);

export const REFUSALS_BEGIN =
  '<!-- BEGIN GENERATED: refusal codes (npm run docs:types, from src/modules/refusals.ts) -->';
export const REFUSALS_END = '<!-- END GENERATED: refusal codes -->';

/** docs/API.md "Refusal codes": every catalog's codes with their wording, module by module. */
export function refusalsSection(catalogs: readonly RefusalCatalog[]): string {
  const rows = catalogs.flatMap((c) =>
    c.codes.map(
      (k) => `| ${code(k)} | ${c.module} | ${cell(c.template(k)).replace(/</g, '&lt;').replace(/>/g, '&gt;')} |`,
    ),
  );
  return [REFUSALS_BEGIN, '| code | module | reason |', '|---|---|---|', ...rows, REFUSALS_END].join('\n');
}
export const withRefusalsSection = (doc: string, section: string): string =>
  withSection(doc, REFUSALS_BEGIN, REFUSALS_END, section);
