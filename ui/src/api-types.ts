// The REST API's types, generated from the server's OpenAPI document (components.schemas, derived from the
// records in model/). Do not edit: ApiTypesTest fails when this file differs from what the records say now.
// Regenerate: ./mvnw -pl server -am verify -Dtest=ApiTypesTest -Ddrover.api-types.write=true

export interface Page<T> {
  items: T[];
  total: number;
  offset: number;
  limit: number;
}

export interface AddonCatalog {
  addons?: AddonInfo[];
  skipped?: SkippedEntry[];
  unreadable_registries?: Record<string, string>;
}

export interface AddonChange {
  addon?: string;
  version?: string;
  dry_run: boolean;
  steps?: AddonChangeStep[];
  already_installed?: Record<string, string>;
  notes?: string;
}

export interface AddonChangeStep {
  name?: string;
  version?: string;
  registry?: string;
  action?: 'install' | 'upgrade' | 'reconfigure';
  required_by?: string[];
}

export interface AddonInfo {
  name?: string;
  status?: 'enabled' | 'disabled';
  installed_version?: string;
  registry?: string;
  available_versions?: string[];
  description?: string;
  dependencies?: AddonInfoDependencyState[];
  params?: Record<string, unknown>;
  enabled_at?: string;
  updated_at?: string;
}

export interface AddonInfoDependencyState {
  name?: string;
  constraint?: string;
  installed_version?: string;
  satisfied: boolean;
}

export interface AddonRequest {
  addon?: string;
  params?: Record<string, unknown>;
  dry_run?: boolean;
}

export interface AddonSchema {
  name?: string;
  version?: string;
  registry?: string;
  schema?: Record<string, unknown>;
}

export interface AgentInfo {
  id?: string;
  key_state?: 'accepted' | 'pending' | 'rejected' | 'denied';
  bk_host_id?: number;
  bk_biz_id?: number;
  inner_ip?: string;
  online: boolean;
  version?: string;
  last_seen?: string;
  link_conflict?: LinkConflict;
  mode?: string;
}

export interface AgentInstallHost {
  id: number;
  address?: string;
  port: number;
  agent_id?: string;
  inner_ip?: string;
  bk_host_id?: number;
  prefix?: string;
  status?: 'pending' | 'running' | 'succeeded' | 'failed';
  error?: string;
  arch?: string;
  version?: string;
  started_at?: string;
  finished_at?: string;
  steps?: AgentInstallStep[];
}

export interface AgentInstallRequest {
  hosts?: AgentInstallRequestInstallHost[];
  ssh_user?: string;
  ssh_private_key?: string;
  ssh_password?: string;
  jump?: string;
  jump_private_key?: string;
  jump_password?: string;
  bk_biz_id?: number;
  concurrency?: number;
  package_version?: string;
  masters?: string[];
  master_finger?: string;
  publish_port?: number;
  prefix?: string;
  service?: string;
  wait_seconds?: number;
}

export interface AgentInstallRequestInstallHost {
  address?: string;
  port?: number;
  bk_host_id?: number;
  inner_ip?: string;
  id?: string;
  prefix?: string;
}

export interface AgentInstallRetry {
  ssh_private_key?: string;
  ssh_password?: string;
  jump_private_key?: string;
  jump_password?: string;
}

export interface AgentInstallStep {
  name?: string;
  status?: 'pending' | 'running' | 'succeeded' | 'failed';
  started_at?: string;
  finished_at?: string;
  log?: string[];
}

export interface AgentInstallTask {
  id: number;
  bk_biz_id: number;
  status?: 'pending' | 'running' | 'succeeded' | 'failed';
  created_by?: string;
  ssh_user?: string;
  jump?: string;
  masters?: string[];
  concurrency: number;
  created_at?: string;
  finished_at?: string;
  total: number;
  succeeded: number;
  failed: number;
  hosts?: AgentInstallHost[];
}

export interface AgentJob {
  id?: string;
  state?: 'PUBLISHED' | 'RECEIVED' | 'RUNNING' | 'RETURNED' | 'TIMED_OUT' | 'AGENT_LOST' | 'CANCELLED';
  state_at?: string;
  ret?: JobResultReturn;
}

export interface AgentJobPage {
  jid?: string;
  agents?: AgentJob[];
  next?: string;
}

export interface AgentLinkRequest {
  bk_host_id?: number;
  force?: boolean;
  move_business?: boolean;
}

export interface AgentPackageInfo {
  version?: string;
  os?: string;
  arch?: string;
  file_name?: string;
  sha256?: string;
  size_bytes: number;
  uploaded_at?: string;
  uploaded_by?: string;
}

export interface AgentUpgradeHost {
  id: number;
  agent_id?: string;
  batch: number;
  arch?: string;
  from_version?: string;
  version?: string;
  status?: 'pending' | 'skipped' | 'handed_over' | 'succeeded' | 'failed' | 'not_started';
  error?: string;
  log?: string;
  started_at?: string;
  finished_at?: string;
}

export interface AgentUpgradeRequest {
  tgt?: string;
  tgt_type?: string;
  version?: string;
  bk_biz_id?: number;
  batch_size?: number;
  max_failure_ratio?: number;
  wait_seconds?: number;
  allow_downgrade?: boolean;
}

export interface AgentUpgradeTask {
  id: number;
  bk_biz_id: number;
  status?: 'running' | 'succeeded' | 'failed' | 'stopped' | 'cancelled';
  version?: string;
  tgt?: string;
  tgt_type?: string;
  batch_size: number;
  max_failure_ratio: number;
  wait_seconds: number;
  allow_downgrade: boolean;
  created_by?: string;
  created_at?: string;
  finished_at?: string;
  total: number;
  succeeded: number;
  skipped: number;
  failed: number;
  not_started: number;
  hosts?: AgentUpgradeHost[];
}

export interface AlertReceipt {
  received: number;
  resolved: number;
  repeated: number;
  unmatched: number;
  started?: DiagnosesStartedStartedDiagnosis[];
  skipped?: AlertReceiptSkipped[];
}

export interface AlertReceiptSkipped {
  alertname?: string;
  fingerprint?: string;
  reason?: string;
}

export interface AuditEntry {
  id: number;
  at?: string;
  actor?: string;
  method?: string;
  path?: string;
  status: number;
  detail?: string;
}

export interface Business {
  bk_biz_id?: number;
  bk_biz_name?: string;
  attributes?: Record<string, unknown>;
}

export interface Caller {
  token_id: number;
  name?: string;
  role?: 'viewer' | 'operator' | 'admin' | 'alerts';
  bk_biz_ids?: number[];
}

export interface ChangePlanView {
  subscription_id: number;
  instances?: ChangePlanViewInstancePlan[];
  totals?: Record<string, number>;
  missing?: string[];
}

export interface ChangePlanViewInstancePlan {
  instance_id?: string;
  bk_host_id?: number;
  host?: string;
  steps?: ChangePlanViewStepPlan[];
}

export interface ChangePlanViewStepPlan {
  step_id?: string;
  action?: 'INSTALL' | 'UNINSTALL' | 'PUSH_CONFIG' | 'START' | 'STOP' | 'NOT_CHANGE' | 'SKIP' | 'FAIL';
  reason?: string;
  why?: string;
  detail?: string;
}

export interface ClusterStatus {
  server?: string;
  clustered: boolean;
  nats_connected: boolean;
  duties?: string[];
  session_key_generation?: number;
  nats_credentials?: string;
  insecure: boolean;
}

export interface CreatedEnrollmentToken {
  info?: EnrollmentTokenInfo;
  token?: string;
}

export interface CreatedToken {
  info?: TokenInfo;
  token?: string;
}

export interface DiagnosesStarted {
  diagnoses?: DiagnosesStartedStartedDiagnosis[];
}

export interface DiagnosesStartedStartedDiagnosis {
  id: number;
  name?: string;
  host_id: number;
  host_name?: string;
}

export interface DiagnosisInfo {
  id: number;
  name?: string;
  operation_set?: string;
  host_id: number;
  host_name?: string;
  biz_id: number;
  agent_id?: string;
  source?: string;
  trigger?: string;
  parameters?: Record<string, string>;
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Cancelled';
  checkpoint?: DiagnosisInfoCheckpoint;
  paths?: number[][];
  failed_paths?: number[][];
  succeeded_path?: number[];
  operation_results?: Record<string, string>;
  conditions?: DiagnosisInfoCondition[];
  nodes?: DiagnosisInfoNodeRun[];
  created_by?: string;
  created_at?: string;
  updated_at?: string;
}

export interface DiagnosisInfoCheckpoint {
  path_index: number;
  node_index: number;
}

export interface DiagnosisInfoCondition {
  type?: string;
  reason?: string;
  message?: string;
  time?: string;
}

export interface DiagnosisInfoNodeRun {
  path_index: number;
  node: number;
  operation?: string;
  succeeded: boolean;
  error?: string;
  time?: string;
  results?: Record<string, string>;
}

export interface DiagnosisInfoSummary {
  id: number;
  name?: string;
  operation_set?: string;
  host_name?: string;
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Cancelled';
  source?: string;
  created_at?: string;
  updated_at?: string;
}

export interface DiagnosisObject {
  kind?: string;
  name?: string;
  builtin: boolean;
  document?: KubeDocument;
  paths?: number[][];
  last_schedule_time?: string;
  updated_at?: string;
}

export interface DiagnosisObjectSummary {
  kind?: string;
  name?: string;
  builtin: boolean;
  detail?: string;
  updated_at?: string;
}

export interface EnrollmentTokenInfo {
  id: number;
  name?: string;
  bk_biz_id: number;
  uses: number;
  created_at?: string;
  expires_at?: string;
  revoked_at?: string;
  max_uses?: number;
  id_glob?: string;
}

export interface EnrollmentTokenRequest {
  name?: string;
  bk_biz_id?: number;
  ttl_hours?: number;
  max_uses?: number;
  id_glob?: string;
}

export interface Host {
  bk_host_id?: number;
  bk_biz_id?: number;
  bk_host_innerip?: string;
  bk_cloud_id?: number;
  bk_host_name?: string;
  os_type?: string;
  cpu_arch?: string;
  bk_module_ids?: number[];
  attributes?: Record<string, unknown>;
}

export interface HostMove {
  bk_biz_id?: number;
  bk_module_ids?: number[];
}

export interface HostPlugin {
  plugin?: string;
  version?: string;
  status?: 'RUNNING' | 'STOPPED' | 'UNKNOWN';
  port?: number;
  subscription_id: number;
  subscription?: string;
  step_id?: string;
  instance_id?: string;
  group_id?: string;
  files?: string[];
}

export interface ImportResult {
  created: number;
  updated: number;
  unchanged: number;
}

export interface InstanceStatus {
  instance_id?: string;
  status?: 'PENDING' | 'RUNNING' | 'FAILED' | 'NOT_DEPLOYED' | 'STOPPED' | 'UNKNOWN';
  deployed?: InstanceStatusDeployed[];
  last_task_id?: number;
  last_task_status?: 'PENDING' | 'RUNNING' | 'SUCCESS' | 'FAILED' | 'SKIPPED' | 'REVOKED';
}

export interface InstanceStatusDeployed {
  step_id?: string;
  plugin?: string;
  version?: string;
  status?: 'RUNNING' | 'STOPPED' | 'UNKNOWN';
  port?: number;
  bk_host_id: number;
  group_id?: string;
  updated_at?: string;
}

export interface InventoryDocument {
  businesses?: Business[];
  sets?: TopoSet[];
  modules?: TopoModule[];
  hosts?: Host[];
  service_instances?: ServiceInstance[];
}

export interface JobCancelRequest {
  targets?: string[];
}

export interface JobCancelled {
  jid?: string;
  cancelled: number;
  finished: number;
  kill_jid?: string;
}

export interface JobRequest {
  tgt?: string;
  tgt_type?: string;
  fun?: string;
  arg?: unknown[];
  kwarg?: Record<string, unknown>;
  timeout?: number;
}

export interface JobResult {
  jid?: string;
  fun?: string;
  arg?: unknown[];
  tgt?: string;
  tgt_type?: string;
  minions?: string[];
  missing?: string[];
  created_at?: string;
  returns?: Record<string, JobResultReturn>;
  states?: Record<string, 'PUBLISHED' | 'RECEIVED' | 'RUNNING' | 'RETURNED' | 'TIMED_OUT' | 'AGENT_LOST' | 'CANCELLED'>;
  counts?: Record<string, number>;
}

export interface JobResultReturn {
  ret?: unknown;
  retcode: number;
  success: boolean;
  at?: string;
}

export interface JobStarted {
  jid?: string;
  minions?: string[];
  missing?: string[];
}

export interface JobSummary {
  jid?: string;
  fun?: string;
  tgt?: string;
  tgt_type?: string;
  actor?: string;
  created_at?: string;
  agents: number;
  states?: Record<string, number>;
}

export interface KubeDocument {
  apiVersion?: string;
  kind?: string;
  metadata?: Record<string, unknown>;
  spec?: Record<string, unknown>;
}

export interface LinkConflict {
  reason?: 'other_business' | 'host_has_agent';
  claimed_ip?: string;
  bk_cloud_id: number;
  bk_host_id?: number;
  since?: string;
}

export interface MasterKeyInfo {
  fingerprint?: string;
  public_key?: string;
}

export interface MinionKey {
  id?: string;
  state?: 'accepted' | 'pending' | 'rejected' | 'denied';
  fingerprint?: string;
  created_at?: string;
  updated_at?: string;
}

export interface PackageInfo {
  name?: string;
  version?: string;
  category?: string;
  description?: string;
  sha256?: string;
  size_bytes: number;
  source?: string;
  uploaded_at?: string;
  path?: string;
  metadata?: PackageMetadata;
}

export interface PackageMetadata {
  name?: string;
  version?: string;
  description?: string;
  category?: string;
  os?: string[];
  cpu_arch?: string[];
  dependencies?: PackageMetadataDependency[];
  system?: Record<string, string>;
  control?: Record<string, string>;
  process_name?: string;
  port_range?: string;
  need_delegate?: boolean;
  config_templates?: PackageMetadataConfigTemplate[];
  parameters?: Record<string, unknown>;
  tags?: string[];
  url?: string;
  icon?: string;
}

export interface PackageMetadataConfigTemplate {
  name?: string;
  path?: string;
  source?: string;
  format?: string;
  is_main?: boolean;
}

export interface PackageMetadataDependency {
  name?: string;
  version?: string;
}

export interface PlanRequest {
  tgt?: string;
  tgt_type?: string;
  plan?: Record<string, unknown>;
  parameters?: Record<string, unknown>;
  timeout?: number;
}

export interface PlanRun {
  id?: string;
  name?: string;
  jid?: string;
  tgt?: string;
  tgt_type?: string;
  created_by?: string;
  created_at?: string;
  status?: 'RUNNING' | 'SUCCEEDED' | 'FAILED';
  minions?: string[];
  missing?: string[];
  results?: Record<string, PlanRunHostResult>;
  logs?: PlanRunLogLine[];
  plan?: Record<string, unknown>;
}

export interface PlanRunHostResult {
  error_code: number;
  message?: string;
  document?: unknown;
  at?: string;
}

export interface PlanRunLogLine {
  seq: number;
  agent_id?: string;
  level?: string;
  body?: string;
  time?: string;
}

export interface PlanStarted {
  id?: string;
  jid?: string;
  minions?: string[];
  missing?: string[];
}

export interface PlanSummary {
  id?: string;
  name?: string;
  jid?: string;
  created_by?: string;
  created_at?: string;
  status?: 'RUNNING' | 'SUCCEEDED' | 'FAILED';
  hosts: number;
  succeeded: number;
  failed: number;
}

export interface Problem {
  type?: string;
  title?: string;
  status: number;
  detail?: string;
  code?: string;
  errors?: ProblemFieldError[];
}

export interface ProblemFieldError {
  field?: string;
  message?: string;
}

export interface RegistryInfo {
  name?: string;
  type?: string;
  url?: string;
  path?: string;
  ref?: string;
  position: number;
  created_at?: string;
  insecure: boolean;
}

export interface RegistryRequest {
  name?: string;
  type?: string;
  url?: string;
  path?: string;
  ref?: string;
  insecure?: boolean;
}

export interface RunRequest {
  actions?: Record<string, string>;
  instance_ids?: string[];
}

export interface SecretInfo {
  bk_biz_id: number;
  name?: string;
  updated_by?: string;
  created_at?: string;
  updated_at?: string;
}

export interface SecretRequest {
  value?: string;
}

export interface ServiceInstance {
  id?: number;
  name?: string;
  bk_biz_id?: number;
  bk_module_id?: number;
  bk_host_id?: number;
  labels?: Record<string, string>;
  processes?: ServiceProcess[];
}

export interface ServiceProcess {
  name?: string;
  bind_ip?: string;
  ports?: number[];
  protocol?: string;
}

export interface SkippedEntry {
  registry?: string;
  entry?: string;
  reason?: string;
}

export interface SshHostKey {
  address?: string;
  port: number;
  key_type?: string;
  fingerprint?: string;
  first_seen?: string;
}

export interface SubscriptionInfo {
  id: number;
  name?: string;
  bk_biz_id: number;
  object_type?: string;
  node_type?: string;
  enabled: boolean;
  spec?: SubscriptionSpec;
  created_at?: string;
  updated_at?: string;
}

export interface SubscriptionSpec {
  name?: string;
  scope?: SubscriptionSpecScope;
  steps?: SubscriptionSpecStep[];
  target_hosts?: SubscriptionSpecNode[];
  run_immediately?: boolean;
  enable?: boolean;
  batch_size?: number;
  max_failure_ratio?: number;
}

export interface SubscriptionSpecNode {
  bk_obj_id?: string;
  bk_inst_id?: number;
  bk_biz_id?: number;
  bk_host_id?: number;
  ip?: string;
  bk_cloud_id?: number;
  id?: number;
}

export interface SubscriptionSpecScope {
  bk_biz_id?: number;
  object_type?: string;
  node_type?: string;
  nodes?: SubscriptionSpecNode[];
  instance_selector?: Record<string, unknown>;
}

export interface SubscriptionSpecStep {
  id?: string;
  type?: string;
  config?: SubscriptionSpecStepConfig;
  params?: SubscriptionSpecStepParams;
}

export interface SubscriptionSpecStepConfig {
  plugin_name?: string;
  plugin_version?: string;
  config_templates?: SubscriptionSpecTemplateRef[];
}

export interface SubscriptionSpecStepParams {
  context?: Record<string, unknown>;
}

export interface SubscriptionSpecTemplateRef {
  name?: string;
  version?: string;
}

export interface SubscriptionStarted {
  subscription?: SubscriptionInfo;
  task_id?: number;
  note?: string;
}

export interface SubscriptionStatistics {
  subscription_id: number;
  instances: number;
  by_status?: Record<string, number>;
  by_version?: Record<string, number>;
}

export interface TaskInfo {
  id: number;
  subscription_id: number;
  status?: 'PENDING' | 'RUNNING' | 'SUCCESS' | 'FAILED' | 'SKIPPED' | 'REVOKED';
  trigger?: string;
  actor?: string;
  created_at?: string;
  started_at?: string;
  finished_at?: string;
  error?: string;
  counts?: Record<string, number>;
  instances?: TaskInfoTaskInstance[];
}

export interface TaskInfoStepRecord {
  step_id?: string;
  action?: 'INSTALL' | 'UNINSTALL' | 'PUSH_CONFIG' | 'START' | 'STOP' | 'NOT_CHANGE' | 'SKIP' | 'FAIL';
  reason?: string;
  status?: 'PENDING' | 'RUNNING' | 'SUCCESS' | 'FAILED' | 'SKIPPED' | 'REVOKED';
  sub_steps?: TaskInfoSubStep[];
}

export interface TaskInfoSubStep {
  name?: string;
  status?: 'PENDING' | 'RUNNING' | 'SUCCESS' | 'FAILED' | 'SKIPPED' | 'REVOKED';
  started_at?: string;
  finished_at?: string;
  log?: string[];
  jid?: string;
}

export interface TaskInfoTaskInstance {
  instance_id?: string;
  bk_host_id?: number;
  status?: 'PENDING' | 'RUNNING' | 'SUCCESS' | 'FAILED' | 'SKIPPED' | 'REVOKED';
  error?: string;
  started_at?: string;
  finished_at?: string;
  steps?: TaskInfoStepRecord[];
}

export interface TokenInfo {
  id: number;
  name?: string;
  role?: 'viewer' | 'operator' | 'admin' | 'alerts';
  bk_biz_ids?: number[];
  created_at?: string;
  last_used_at?: string;
  revoked_at?: string;
  expires_at?: string;
}

export interface TokenRequest {
  name?: string;
  role?: 'viewer' | 'operator' | 'admin' | 'alerts';
  bk_biz_ids?: number[];
  ttl_hours?: number;
}

export interface TopoModule {
  bk_module_id?: number;
  bk_set_id?: number;
  bk_biz_id?: number;
  bk_module_name?: string;
  idle: boolean;
}

export interface TopoSet {
  bk_set_id?: number;
  bk_biz_id?: number;
  bk_set_name?: string;
}

export interface Topology {
  bk_biz_id: number;
  bk_biz_name?: string;
  sets?: TopologySetTree[];
}

export interface TopologyModuleLeaf {
  bk_module_id: number;
  bk_module_name?: string;
  idle: boolean;
  host_count: number;
  service_instance_count: number;
}

export interface TopologySetTree {
  bk_set_id: number;
  bk_set_name?: string;
  modules?: TopologyModuleLeaf[];
}
