// Worker thread of VmCallPool (callPool.ts). The node runs its TypeScript through tsx with no
// build step; a worker does not inherit the parent's loader, so it registers its own first.
import { register } from 'tsx/esm/api';

register();
await import('./callWorkerMain.ts');
