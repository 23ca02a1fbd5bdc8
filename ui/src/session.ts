import { createContext, useContext } from 'react';
import type { WhoAmI } from './api/client';
import type { Permissions } from './api/perms';

export interface Session {
  who: WhoAmI;
  perms: Permissions;
  can: (method: string, path: string) => boolean;
  signOut: () => void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('no session');
  return s;
}
