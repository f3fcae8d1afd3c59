package dev.nightshift.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EvictorTest {

    /** The body a real API server sends for an eviction a budget refuses. */
    private static final String REFUSED = """
            {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
             "message":"Cannot evict pod as it would violate the pod's disruption budget.","reason":"TooManyRequests",
             "details":{"causes":[{"reason":"DisruptionBudget",
               "message":"The disruption budget web-pdb needs 2 healthy pods and has 2 currently"}]},"code":429}
            """;

    @Test
    void aRefusalCausedByADisruptionBudgetIsBlockedAndNamesTheBudget() {
        assertThat(Evictor.budgetCause(REFUSED)).hasValueSatisfying(r -> {
            assertThat(r).isInstanceOf(EvictionResult.BlockedByBudget.class);
            assertThat(((EvictionResult.BlockedByBudget) r).budget()).isEqualTo("web-pdb");
        });
    }

    @Test
    void aTooManyRequestsWithoutABudgetCauseIsThrottlingNotBlocked() {
        String throttled = """
                {"kind":"Status","apiVersion":"v1","status":"Failure","message":"Too many requests, please try again later.",
                 "reason":"TooManyRequests","code":429}
                """;

        assertThat(Evictor.budgetCause(throttled)).isEmpty();
    }
}
