// The plan preview as a table: one row per instance, one column per step, each cell the planned action.

export interface StepPlan {
  step_id: string;
  action: string;
  reason?: string;
  why?: string;
  detail?: string;
}

export interface InstancePlan {
  instance_id: string;
  bk_host_id?: number;
  host?: string;
  steps: StepPlan[];
}

export interface ChangePlanView {
  subscription_id?: number;
  instances: InstancePlan[];
  totals?: Record<string, number>;
  missing?: string[];
}

/** Actions that leave an instance as it is: hidden by "changes only". */
export const NO_CHANGE_ACTIONS = new Set(['NOT_CHANGE', 'SKIP']);

export interface PlanRow {
  instance_id: string;
  host: string;
  bk_host_id?: number;
  cells: Record<string, StepPlan | undefined>;
  changes: number;
}

export interface PlanTable {
  steps: string[];
  rows: PlanRow[];
  /** count per action over every cell of every instance (not only the shown rows) */
  counts: Record<string, number>;
  /** actions in a stable order: changes first (alphabetical), then NOT_CHANGE, SKIP */
  actions: string[];
  totalRows: number;
  changedRows: number;
  missing: string[];
}

export function isChange(action: string | undefined): boolean {
  return !!action && !NO_CHANGE_ACTIONS.has(action);
}

export function buildPlanTable(plan: ChangePlanView | null | undefined, opts: { changesOnly?: boolean; action?: string } = {}): PlanTable {
  const steps: string[] = [];
  const seen = new Set<string>();
  const counts: Record<string, number> = {};
  const rows: PlanRow[] = [];
  let changedRows = 0;
  for (const inst of plan?.instances ?? []) {
    const cells: Record<string, StepPlan | undefined> = {};
    let changes = 0;
    for (const s of inst.steps ?? []) {
      if (!seen.has(s.step_id)) {
        seen.add(s.step_id);
        steps.push(s.step_id);
      }
      cells[s.step_id] = s;
      counts[s.action] = (counts[s.action] ?? 0) + 1;
      if (isChange(s.action)) changes++;
    }
    if (changes > 0) changedRows++;
    rows.push({ instance_id: inst.instance_id, host: inst.host ?? (inst.bk_host_id != null ? `host ${inst.bk_host_id}` : inst.instance_id), bk_host_id: inst.bk_host_id, cells, changes });
  }
  let shown = rows;
  if (opts.changesOnly) shown = shown.filter((r) => r.changes > 0);
  if (opts.action) shown = shown.filter((r) => Object.values(r.cells).some((c) => c?.action === opts.action));
  const actions = Object.keys(counts).sort((a, b) => {
    const ca = isChange(a) ? 0 : 1;
    const cb = isChange(b) ? 0 : 1;
    return ca !== cb ? ca - cb : a.localeCompare(b);
  });
  return { steps, rows: shown, counts, actions, totalRows: rows.length, changedRows, missing: plan?.missing ?? [] };
}
