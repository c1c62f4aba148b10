/**
 * `npm run docs:types`: rewrites the generated sections of docs/PROTOCOL.md (types from the registry, governable
 * parameters, machine diagrams) and docs/API.md (refusal codes).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { DEV_PARAMS } from '../src/chain/devnet';
import { MACHINE_LIST } from '../src/modules/machines';
import {
  machinesSection,
  paramsSection,
  refusalsSection,
  typesSection,
  withMachinesSection,
  withParamsSection,
  withRefusalsSection,
  withTypesSection,
} from '../src/modules/docs';
import { REFUSAL_CATALOGS } from '../src/modules/refusals';
import { ENTRIES } from '../src/modules/registry';

const path = new URL('../docs/PROTOCOL.md', import.meta.url);
const before = readFileSync(path, 'utf8');
const after = withMachinesSection(
  withParamsSection(withTypesSection(before, typesSection(ENTRIES)), paramsSection(DEV_PARAMS)),
  machinesSection(MACHINE_LIST),
);
writeFileSync(path, after);
console.log(
  after === before
    ? 'docs/PROTOCOL.md: generated sections up to date'
    : 'docs/PROTOCOL.md: generated sections rewritten',
);

const apiPath = new URL('../docs/API.md', import.meta.url);
const apiBefore = readFileSync(apiPath, 'utf8');
const apiAfter = withRefusalsSection(apiBefore, refusalsSection(REFUSAL_CATALOGS));
writeFileSync(apiPath, apiAfter);
console.log(
  apiAfter === apiBefore ? 'docs/API.md: generated sections up to date' : 'docs/API.md: generated sections rewritten',
);
