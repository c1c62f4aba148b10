export { permissionApprove, permissionPropose, permissionUpdate, permissionVeto } from './permission';
export { multisigApprove, multisigPropose } from './multisig';
export { getMultisig, type MultisigProposal } from './records';
export { PERMISSIONS } from './errors';
