import { describe, expect, it } from 'vitest';
import { linkConflictText } from './agents';

describe('link conflicts', () => {
  it('name the host only when the answer holds it', () => {
    expect(linkConflictText({ reason: 'other_business', claimed_ip: '10.9.7.1', bk_cloud_id: 0 })).toBe(
      'claims 10.9.7.1, the address of a host of another business',
    );
    expect(linkConflictText({ reason: 'other_business', claimed_ip: '10.9.7.1', bk_cloud_id: 2, bk_host_id: 7001 })).toBe(
      'claims 10.9.7.1 (cloud 2), the address of host 7001 of another business',
    );
    expect(linkConflictText({ reason: 'host_has_agent', claimed_ip: '10.9.8.1', bk_cloud_id: 0, bk_host_id: 8001 })).toBe(
      'claims 10.9.8.1, the address of host 8001, which already has an agent',
    );
  });
});
