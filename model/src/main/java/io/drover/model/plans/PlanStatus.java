package io.drover.model.plans;

/** An execution plan: RUNNING until every host answered, then SUCCEEDED when every ErrorCode is 0, else FAILED. */
public enum PlanStatus {
    RUNNING, SUCCEEDED, FAILED
}
