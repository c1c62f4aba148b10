/** The resource-delegation entries. */
export { delegateResource, undelegateResource } from './delegate';
export { delegationKey, getDelegation } from './records';
