import { describe, expect, it } from 'vitest';
import { buildPlanTable, type ChangePlanView } from './planModel';

const plan: ChangePlanView = {
  subscription_id: 1,
  instances: [
    { instance_id: 'i1', bk_host_id: 1, host: '10.0.1.1', steps: [{ step_id: 'exporter', action: 'NOT_CHANGE', reason: 'UP_TO_DATE' }, { step_id: 'beat', action: 'NOT_CHANGE' }] },
    { instance_id: 'i2', bk_host_id: 2, host: '10.0.1.2', steps: [{ step_id: 'exporter', action: 'PUSH_CONFIG', reason: 'CONFIG_CHANGED', why: 'params differ' }, { step_id: 'beat', action: 'NOT_CHANGE' }] },
    { instance_id: 'i3', bk_host_id: 3, host: '10.0.1.3', steps: [{ step_id: 'exporter', action: 'INSTALL' }, { step_id: 'beat', action: 'INSTALL' }, { step_id: 'extra', action: 'START' }] },
    { instance_id: 'i4', bk_host_id: 4, steps: [{ step_id: 'exporter', action: 'SKIP', reason: 'AGENT_OFFLINE' }, { step_id: 'beat', action: 'SKIP' }] },
  ],
  missing: ['host 9'],
};

describe('buildPlanTable', () => {
  it('counts every action over all cells', () => {
    const t = buildPlanTable(plan);
    expect(t.counts).toEqual({ NOT_CHANGE: 3, PUSH_CONFIG: 1, INSTALL: 2, START: 1, SKIP: 2 });
    const sum = Object.values(t.counts).reduce((a, b) => a + b, 0);
    expect(sum).toBe(9);
  });

  it('collects step columns in first-seen order', () => {
    expect(buildPlanTable(plan).steps).toEqual(['exporter', 'beat', 'extra']);
  });

  it('maps cells by step and leaves absent steps undefined', () => {
    const t = buildPlanTable(plan);
    expect(t.rows[1].cells.exporter?.why).toBe('params differ');
    expect(t.rows[0].cells.extra).toBeUndefined();
    expect(t.rows[3].host).toBe('host 4');
  });

  it('orders actions changes first', () => {
    expect(buildPlanTable(plan).actions).toEqual(['INSTALL', 'PUSH_CONFIG', 'START', 'NOT_CHANGE', 'SKIP']);
  });

  it('changes only hides instances without changes but keeps counts', () => {
    const t = buildPlanTable(plan, { changesOnly: true });
    expect(t.rows.map((r) => r.instance_id)).toEqual(['i2', 'i3']);
    expect(t.totalRows).toBe(4);
    expect(t.changedRows).toBe(2);
    expect(t.counts.NOT_CHANGE).toBe(3);
    expect(t.rows.find((r) => r.instance_id === 'i3')?.changes).toBe(3);
  });

  it('filters by one action', () => {
    expect(buildPlanTable(plan, { action: 'SKIP' }).rows.map((r) => r.instance_id)).toEqual(['i4']);
  });

  it('handles an empty or missing plan', () => {
    const t = buildPlanTable(null);
    expect(t.rows).toEqual([]);
    expect(t.steps).toEqual([]);
    expect(buildPlanTable(plan).missing).toEqual(['host 9']);
  });
});
