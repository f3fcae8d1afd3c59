package dev.nightshift.agent.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.nightshift.agent.run.RolloutInvariants.Limits;
import dev.nightshift.agent.run.RolloutInvariants.Start;
import dev.nightshift.sandbox.demo.DemoWorkloads;

/**
 * A drain blocked by a PodDisruptionBudget, with each machine provider ({@link ProviderRolloutScenario}): nothing is
 * deleted while the budget refuses, and the rollout goes on once it allows.
 */
class ProviderRolloutDrainIT extends ProviderRolloutScenario {

    @ParameterizedTest
    @EnumSource(RolloutBackend.class)
    void aDrainBlockedByABudgetWaitsAndGoesOnOnceTheBudgetAllows(RolloutBackend backend) throws Exception {
        Limits limits = new Limits(NODES, 1, 0);
        String blocking = pool("1631.0.0", 1, 0) + "  machineControllerManager: {maxEvictRetries: 2, onEvictionBlocked: Wait}\n";
        Start start = adopted(backend, blocking);
        budget(0);

        push(blocking.replace("1631.0.0", "1632.0.0"), "image bump");
        await("evictions refused by the budget").atMost(ROLLOUT).pollInterval(Duration.ofMillis(50))
                .until(() -> h.kube.requests().stream().filter(r -> r.resourcePath().endsWith("/eviction") && r.status() == 429).count() >= 3);
        assertThat(h.kube.requests()).as("nothing deleted while the budget refuses" + RolloutInvariants.writes(h.kube.requests()))
                .noneMatch(r -> r.method().equals("DELETE") && r.succeeded() && (r.resourcePath().startsWith("/api/v1/nodes/")
                        || r.resourcePath().contains("/machines/") || r.resourcePath().contains("/pods/")));
        assertThat(h.kube.client().pods().inNamespace(DemoWorkloads.NAMESPACE).list().getItems()).as("every pod still runs").hasSize(NODES);

        budget(1);

        rolledOutWithin(limits, start);
    }
}
