import type { LinkConflict } from '../types';

/** What a link conflict means, in one line, for the agents view. */
export function linkConflictText(c: LinkConflict): string {
  const where = `${c.claimed_ip}${c.bk_cloud_id ? ` (cloud ${c.bk_cloud_id})` : ''}`;
  const host = c.bk_host_id !== undefined ? `host ${c.bk_host_id}` : 'a host';
  return c.reason === 'other_business'
    ? `claims ${where}, the address of ${host} of another business`
    : `claims ${where}, the address of ${host}, which already has an agent`;
}
