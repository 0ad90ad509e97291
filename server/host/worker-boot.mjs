// Entry of the game host's worker thread: loads the TypeScript sources through tsx (fresh from disk
// on every start, which is what makes `@reload` reload the game code), then runs worker.ts.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
