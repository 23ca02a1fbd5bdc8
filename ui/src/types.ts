// Shapes of the API answers the console reads (see the server's OpenAPI document).

export interface Agent {
  id: string;
  key_state: string;
  bk_host_id?: number;
  bk_biz_id?: number;
  inner_ip?: string;
  online: boolean;
  version?: string;
  last_seen?: string;
  link_conflict?: LinkConflict;
}

/** Why an agent is not linked to the host at the address it claims (bk_host_id only when the token may see it). */
export interface LinkConflict {
  reason: 'other_business' | 'host_has_agent';
  claimed_ip: string;
  bk_cloud_id: number;
  bk_host_id?: number;
  since?: string;
}

export interface Business {
  bk_biz_id: number;
  bk_biz_name: string;
  attributes?: Record<string, unknown>;
}

export interface TopoModule {
  bk_module_id: number;
  bk_module_name: string;
  idle?: boolean;
  host_count?: number;
  service_instance_count?: number;
}

export interface TopoSet {
  bk_set_id: number;
  bk_set_name: string;
  modules: TopoModule[];
}

export interface Topology {
  bk_biz_id: number;
  bk_biz_name: string;
  sets: TopoSet[];
}

export interface Host {
  bk_host_id: number;
  bk_biz_id: number;
  bk_host_innerip: string;
  bk_cloud_id?: number;
  bk_host_name?: string;
  os_type?: string;
  cpu_arch?: string;
  bk_module_ids?: number[];
  attributes?: Record<string, unknown>;
}

export interface Paged<T> {
  items: T[];
  total: number;
  offset: number;
  limit: number;
}

export interface HostPlugin {
  plugin: string;
  version?: string;
  status?: string;
  port?: number;
  subscription_id?: number;
  subscription?: string;
  step_id?: string;
  instance_id?: string;
  group_id?: string;
  files?: string[];
}

export interface Subscription {
  id: number;
  name: string;
  bk_biz_id?: number;
  object_type?: string;
  node_type?: string;
  enabled: boolean;
  spec: Record<string, unknown>;
  created_at?: string;
  updated_at?: string;
}

export interface TaskSummary {
  id: number;
  subscription_id: number;
  status: string;
  trigger?: string;
  actor?: string;
  created_at?: string;
  started_at?: string;
  finished_at?: string;
  error?: string;
  counts?: Record<string, number>;
}

export interface SubStep {
  name: string;
  status: string;
  started_at?: string;
  finished_at?: string;
  log?: string[];
  jid?: string;
}

export interface StepRecord {
  step_id: string;
  action?: string;
  reason?: string;
  status: string;
  sub_steps?: SubStep[];
}

export interface TaskInstance {
  instance_id: string;
  bk_host_id?: number;
  status: string;
  error?: string;
  started_at?: string;
  finished_at?: string;
  steps?: StepRecord[];
}

export interface TaskInfo extends TaskSummary {
  instances?: TaskInstance[];
}

export interface InstanceStatus {
  instance_id: string;
  status: string;
  deployed?: Array<{ step_id: string; plugin: string; version?: string; status?: string; port?: number; bk_host_id?: number }>;
  last_task_id?: number;
  last_task_status?: string;
}

export interface Diagnosis {
  id: number;
  name: string;
  operation_set: string;
  host_id?: number;
  host_name?: string;
  biz_id?: number;
  agent_id?: string;
  source?: string;
  trigger?: string;
  parameters?: Record<string, string>;
  phase: string;
  checkpoint?: { path_index: number; node_index: number };
  paths?: number[][];
  failed_paths?: number[][];
  succeeded_path?: number[];
  operation_results?: Record<string, string>;
  conditions?: Array<Record<string, unknown>>;
  nodes?: Array<{ path_index?: number; node?: number; operation?: string; succeeded?: boolean; error?: string; time?: string; results?: Record<string, string> }>;
  created_at?: string;
  updated_at?: string;
}

export interface LibrarySummary {
  kind: string;
  name: string;
  builtin?: boolean;
  detail?: string;
  updated_at?: string;
}

export interface OperationSetDoc {
  kind: string;
  name: string;
  builtin?: boolean;
  document: { spec?: { adjacencyList?: Array<{ id: number; operation?: string; to?: number[] }> }; [k: string]: unknown };
  paths?: number[][];
}

export interface AddonInfo {
  name: string;
  status: string;
  installed_version?: string;
  registry?: string;
  available_versions?: string[];
  description?: string;
  dependencies?: Array<{ name: string; constraint?: string; installed_version?: string; satisfied?: boolean }>;
  params?: Record<string, unknown>;
  notes?: string;
  NOTES?: string;
  enabled_at?: string;
  updated_at?: string;
  [k: string]: unknown;
}

export interface PackageInfo {
  name: string;
  version: string;
  category?: string;
  description?: string;
  sha256?: string;
  size_bytes?: number;
  source?: string;
  uploaded_at?: string;
  metadata?: { parameters?: Record<string, unknown>; dependencies?: Array<{ name: string; version?: string }>; [k: string]: unknown };
}

export interface JobResult {
  jid: string;
  fun?: string;
  arg?: unknown[];
  tgt?: string;
  tgt_type?: string;
  minions: string[];
  missing: string[];
  created_at?: string;
  returns?: Record<string, { ret: unknown; retcode?: number; success?: boolean; at?: string }>;
  /** each agent's recorded state: PUBLISHED, RECEIVED, RUNNING, RETURNED, TIMED_OUT, AGENT_LOST, CANCELLED */
  states?: Record<string, string>;
  counts?: Record<string, number>;
}

export interface PlanSummary {
  id: string;
  name?: string;
  jid?: string;
  created_by?: string;
  created_at?: string;
  status?: string;
  hosts?: number;
  succeeded?: number;
  failed?: number;
}

export interface PlanRun extends PlanSummary {
  tgt?: string;
  tgt_type?: string;
  minions?: string[];
  missing?: string[];
  results?: Record<string, { error_code?: number; message?: string; document?: unknown; at?: string }>;
  logs?: Array<{ seq?: number; agent_id: string; level?: string; body: string; time?: string }>;
  plan?: Record<string, unknown>;
}

export interface MinionKey {
  id: string;
  state: string;
  fingerprint?: string;
  created_at?: string;
  updated_at?: string;
}

export interface AuditEntry {
  id: number;
  at: string;
  actor: string;
  method: string;
  path: string;
  status: number;
  detail?: string;
}

/** A registered agent package (GET /api/v1/agent-packages). */
export interface AgentPackage {
  version: string;
  os?: string;
  arch: string;
  file_name?: string;
  sha256?: string;
  size_bytes?: number;
  uploaded_at?: string;
}

export interface AgentInstallStep {
  name: string;
  status: string;
  started_at?: string;
  finished_at?: string;
  log?: string[];
}

export interface AgentInstallHost {
  id: number;
  address: string;
  port: number;
  agent_id: string;
  inner_ip?: string;
  bk_host_id?: number;
  status: string;
  error?: string;
  arch?: string;
  version?: string;
  started_at?: string;
  finished_at?: string;
  steps?: AgentInstallStep[];
}

/** An agent install over SSH (GET /api/v1/agent-installs[/{id}]); the list answers it without hosts. */
export interface AgentInstallTask {
  id: number;
  bk_biz_id: number;
  status: string;
  created_by?: string;
  ssh_user?: string;
  jump?: string;
  masters?: string[];
  concurrency?: number;
  created_at?: string;
  finished_at?: string;
  total: number;
  succeeded: number;
  failed: number;
  hosts?: AgentInstallHost[];
}
