// The console's names for the REST API's types. The types themselves are generated from the server's OpenAPI
// document (api-types.ts, from the records in model/); this file only names them as the pages do and says which
// fields a page relies on being present (the server leaves a null field out, so the generated fields are optional).
import type * as Api from './api-types';

/** T with the fields K present. */
type With<T, K extends keyof T> = T & Required<Pick<T, K>>;

export type Paged<T> = Api.Page<T>;
export type { SubscriptionSpec } from './api-types';

export type LinkConflict = With<Api.LinkConflict, 'reason' | 'claimed_ip'>;
export type Agent = Omit<With<Api.AgentInfo, 'id' | 'key_state'>, 'link_conflict'> & { link_conflict?: LinkConflict };
export type AgentPackage = With<Api.AgentPackageInfo, 'version' | 'arch'>;
export type AgentInstallStep = With<Api.AgentInstallStep, 'name' | 'status'>;
export type AgentInstallHost = Omit<With<Api.AgentInstallHost, 'address' | 'agent_id' | 'status'>, 'steps'> & { steps?: AgentInstallStep[] };
/** An agent install over SSH (GET /api/v1/agent-installs[/{id}]); the list answers it without hosts. */
export type AgentInstallTask = Omit<With<Api.AgentInstallTask, 'status'>, 'hosts'> & { hosts?: AgentInstallHost[] };

export type Business = With<Api.Business, 'bk_biz_id' | 'bk_biz_name'>;
export type TopoModule = With<Api.TopologyModuleLeaf, 'bk_module_name'>;
export type TopoSet = Omit<With<Api.TopologySetTree, 'bk_set_name'>, 'modules'> & { modules: TopoModule[] };
export type Topology = Omit<With<Api.Topology, 'bk_biz_name'>, 'sets'> & { sets: TopoSet[] };
export type Host = With<Api.Host, 'bk_host_id' | 'bk_biz_id' | 'bk_host_innerip'>;
export type HostPlugin = With<Api.HostPlugin, 'plugin'>;

export type Subscription = With<Api.SubscriptionInfo, 'name' | 'spec'>;
export type SubStep = With<Api.TaskInfoSubStep, 'name' | 'status'>;
export type StepRecord = Omit<With<Api.TaskInfoStepRecord, 'step_id' | 'status'>, 'sub_steps'> & { sub_steps?: SubStep[] };
export type TaskInstance = Omit<With<Api.TaskInfoTaskInstance, 'instance_id' | 'status'>, 'steps'> & { steps?: StepRecord[] };
export type TaskInfo = Omit<With<Api.TaskInfo, 'status'>, 'instances'> & { instances?: TaskInstance[] };
export type TaskSummary = TaskInfo;
export type InstanceStatus = With<Api.InstanceStatus, 'instance_id' | 'status'>;

export type Diagnosis = With<Api.DiagnosisInfo, 'name' | 'operation_set' | 'phase'>;
export type LibrarySummary = With<Api.DiagnosisObjectSummary, 'kind' | 'name'>;
/** An OperationSet as applied: its document is KubeDiag's, whose spec lists the graph's nodes. */
export type OperationSetDoc = Omit<With<Api.DiagnosisObject, 'kind' | 'name'>, 'document'> & {
  document: Api.KubeDocument & { spec?: { adjacencyList?: Array<{ id: number; operation?: string; to?: number[] }> } };
};

export type AddonInfo = With<Api.AddonInfo, 'name' | 'status'>;
export type PackageInfo = With<Api.PackageInfo, 'name' | 'version'>;
export type Registry = With<Api.RegistryInfo, 'name'>;

export type JobResult = With<Api.JobResult, 'jid' | 'minions' | 'missing'>;
export type PlanSummary = With<Api.PlanSummary, 'id'>;
export type PlanRun = With<Api.PlanRun, 'id'>;
export type MinionKey = With<Api.MinionKey, 'id' | 'state'>;
export type AuditEntry = With<Api.AuditEntry, 'at' | 'actor' | 'method' | 'path'>;
