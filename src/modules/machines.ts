import { permissionChangeDef } from './permissions/machine';
import { proposalDef } from './governance/machine';
import { machineRegistry, type MachineRegistry } from '../machines/registry';
import { taskDef } from './ai/machine';
import { transferDef } from './bridge/machine';

/**
 * Every on-chain machine of the protocol, as the end-of-block tick finds them: the governance
 * proposal and the permission change (machines/), the AI task and the oracle (modules/ai), the
 * bridge transfer (modules/bridge). It lives here, not in machines/, because the AI and bridge
 * definitions' effects use module code (token ledger, oracle records) that machines/ may not
 * import. Adding a machine is one line here.
 */
export const MACHINES: MachineRegistry = machineRegistry([proposalDef, permissionChangeDef, taskDef, transferDef]);
