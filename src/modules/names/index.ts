/** The name-service entries. */
export { nameRelease, nameTransfer, nameUpdate } from './manage';
export { nameRegister } from './register';
