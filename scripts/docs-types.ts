/** `npm run docs:types`: rewrites the generated sections of docs/PROTOCOL.md (types from the registry, governable parameters, machine diagrams). */
import { readFileSync, writeFileSync } from 'node:fs';
import { DEV_PARAMS } from '../src/chain/devnet';
import { DIAGRAMS } from '../src/modules/diagrams';
import { machinesSection, paramsSection, typesSection, withMachinesSection, withParamsSection, withTypesSection } from '../src/modules/docs';
import { ENTRIES } from '../src/modules/registry';

const path = new URL('../docs/PROTOCOL.md', import.meta.url);
const before = readFileSync(path, 'utf8');
const after = withMachinesSection(withParamsSection(withTypesSection(before, typesSection(ENTRIES)), paramsSection(DEV_PARAMS)), machinesSection(DIAGRAMS));
writeFileSync(path, after);
console.log(after === before ? 'docs/PROTOCOL.md: generated sections up to date' : 'docs/PROTOCOL.md: generated sections rewritten');
