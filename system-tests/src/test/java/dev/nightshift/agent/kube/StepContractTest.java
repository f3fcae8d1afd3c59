package dev.nightshift.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.nightshift.agent.TestClusters;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.spec.model.Taint;
import dev.nightshift.spec.model.TaintEffect;
import dev.nightshift.strategies.RolloutPlanner;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.plan.Step;
import dev.nightshift.strategies.sim.SimulationSetup;
import dev.nightshift.strategies.sim.Simulator;

/**
 * The one interpreter contract for steps: each step type, carried out by the agent's
 * {@link StepExecutor} (against the embedded API and the simulated cloud, read back by the
 * {@link ClusterObserver}) and by the {@link Simulator} from the same observed node, changes the
 * fields that step is meant to change in the same way. What each step is meant to change is a
 * {@link Step.Handler}, so a new step type does not compile here until it has a comparison, and
 * {@link #everyStepTypeHasACase} fails until it has a case.
 */
class StepContractTest {

    private static final String NODE = KubeSeam.NODE;
    private static final String POOL = KubeSeam.POOL;
    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
    private static final StampedHash OLD = new StampedHash(1, "0".repeat(32));
    private static final DesiredCluster CLUSTER = TestClusters.oneWebPool();
    private static final DesiredPool DESIRED = CLUSTER.pools().get(0);

    /** One step from a start the test arranges on the cluster. */
    record Case(String name, Consumer<KubeSeam> arrange, Step step) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Case> cases() {
        StampedHash roll = DESIRED.rollHash();
        StampedHash kubelet = DESIRED.kubeletHash();
        return Stream.of(
                new Case("Stamp", t -> { }, new Step.Stamp(NODE, POOL, roll, kubelet, false)),
                new Case("Taint", t -> { }, new Step.Taint(NODE, POOL)),
                new Case("Untaint", StepContractTest::tainted, new Step.Untaint(NODE, POOL)),
                new Case("Cordon", t -> { }, new Step.Cordon(NODE, POOL)),
                new Case("Uncordon", StepContractTest::cordonedDrainingAndRestarting, new Step.Uncordon(NODE, POOL)),
                new Case("Drain", t -> { }, new Step.Drain(NODE, POOL)),
                new Case("Repair", t -> { }, new Step.Repair(NODE, POOL, "DiskPressure", NOW.minusSeconds(600))),
                new Case("ForceDeletePod", StepContractTest::blockedPod, new Step.ForceDeletePod(NODE, POOL, "app-0")),
                // As the planner asks for it: of a node it drained (a Ready, schedulable one is drained first, never deleted).
                new Case("DeleteMachine", StepContractTest::drained, new Step.DeleteMachine(NODE, POOL, true, DESIRED)),
                new Case("CreateMachine", t -> { }, new Step.CreateMachine(POOL + "-surge", POOL, NODE, DESIRED)),
                new Case("UpdateInPlace", t -> { }, new Step.UpdateInPlace(NODE, POOL, DESIRED)),
                new Case("RestartKubelet", t -> { }, new Step.RestartKubelet(NODE, POOL, DESIRED)),
                new Case("Propagate", t -> { }, new Step.Propagate(NODE, POOL, Map.of("team", "web"),
                        Map.of("example.com/owner", "team-web"), List.of(new Taint("dedicated", "web", TaintEffect.NoSchedule)))),
                new Case("LabelCandidate", t -> { }, new Step.LabelCandidate(NODE, POOL)),
                new Case("Validate", t -> { }, new Step.Validate(POOL)));
    }

    /**
     * The fields of the pool's nodes each step is meant to change. Timers both sides start later
     * (a drain's end, a machine's registration) are not part of the step.
     */
    private static final Step.Handler<Function<List<ObservedNode>, Object>> CHANGES = new Step.Handler<>() {
        @Override
        public Function<List<ObservedNode>, Object> stamp(Step.Stamp s) {
            return nodes -> List.of(node(nodes).rollHash(), node(nodes).kubeletHash());
        }

        @Override
        public Function<List<ObservedNode>, Object> taint(Step.Taint s) {
            return nodes -> node(nodes).updateTainted();
        }

        @Override
        public Function<List<ObservedNode>, Object> untaint(Step.Untaint s) {
            return nodes -> node(nodes).updateTainted();
        }

        @Override
        public Function<List<ObservedNode>, Object> cordon(Step.Cordon s) {
            return nodes -> node(nodes).cordoned();
        }

        @Override
        public Function<List<ObservedNode>, Object> uncordon(Step.Uncordon s) {
            return nodes -> {
                ObservedNode n = node(nodes);
                return List.of(n.cordoned(), n.drainStartedAt(), n.blockedEvictions(), n.inPlaceStartedAt(), n.kubeletRestartAt());
            };
        }

        @Override
        public Function<List<ObservedNode>, Object> drain(Step.Drain s) {
            return nodes -> List.of(node(nodes).drainStartedAt(), node(nodes).blockedEvictions());
        }

        @Override
        public Function<List<ObservedNode>, Object> repair(Step.Repair s) {
            return nodes -> List.of(node(nodes).cordoned(), node(nodes).drainStartedAt());
        }

        @Override
        public Function<List<ObservedNode>, Object> forceDeletePod(Step.ForceDeletePod s) {
            return nodes -> node(nodes).blockedEvictions();
        }

        @Override
        public Function<List<ObservedNode>, Object> deleteMachine(Step.DeleteMachine s) {
            return nodes -> List.of(nodes.stream().anyMatch(n -> n.name().equals(NODE)), newMachines(nodes));
        }

        @Override
        public Function<List<ObservedNode>, Object> createMachine(Step.CreateMachine s) {
            return StepContractTest::newMachines;
        }

        @Override
        public Function<List<ObservedNode>, Object> updateInPlace(Step.UpdateInPlace s) {
            return nodes -> List.of(node(nodes).inPlaceStartedAt(), node(nodes).ready());
        }

        @Override
        public Function<List<ObservedNode>, Object> restartKubelet(Step.RestartKubelet s) {
            return nodes -> node(nodes).kubeletRestartAt();
        }

        @Override
        public Function<List<ObservedNode>, Object> propagate(Step.Propagate s) {
            return nodes -> List.of(node(nodes).managedLabels(), node(nodes).managedTaints(), node(nodes).managedAnnotations());
        }

        @Override
        public Function<List<ObservedNode>, Object> labelCandidate(Step.LabelCandidate s) {
            return nodes -> node(nodes).candidateForUpdate();
        }

        /** Validation acts on the pool's streak, never on a node: the node stays as it was. */
        @Override
        public Function<List<ObservedNode>, Object> validate(Step.Validate s) {
            return nodes -> node(nodes);
        }
    };

    @AutoClose
    private final KubeSeam seam = new KubeSeam(Clock.fixed(NOW, ZoneOffset.UTC), KubeSeam.slowCloud(), OLD, OLD);

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void theAgentAndTheSimulatorChangeWhatTheStepIsMeantToChangeAlike(Case c) throws Exception {
        c.arrange().accept(seam);
        seam.startObserving();
        List<ObservedNode> before = awaitStart();
        Function<List<ObservedNode>, Object> changes = c.step().accept(CHANGES);

        List<ObservedNode> simulated = new Simulator(new RolloutPlanner())
                .step(SimulationSetup.of(CLUSTER, POOL, 1, Duration.ofHours(1), Duration.ofHours(1)), before, NOW, c.step());
        Object expected = changes.apply(simulated);
        assertThat(expected).as("the step changes something in the simulator, or is Validate")
                .satisfiesAnyOf(e -> assertThat(e).isNotEqualTo(changes.apply(before)),
                        e -> assertThat(c.step()).isInstanceOf(Step.Validate.class));

        seam.executor.execute(c.step());
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(changes.apply(seam.observed())).as("the agent's observed result of " + c.step()).isEqualTo(expected));
    }

    @Test
    void everyStepTypeHasACase() {
        assertThat(cases().<Class<?>>map(c -> c.step().getClass()).toList())
                .containsExactlyInAnyOrderElementsOf(Arrays.asList(Step.class.getPermittedSubclasses()));
    }

    // ---- starts ------------------------------------------------------------------------------

    private static void tainted(KubeSeam seam) {
        seam.edit(n -> n.getSpec().setTaints(List.of(new io.fabric8.kubernetes.api.model.TaintBuilder()
                .withKey(NodeMarks.UPDATE_TAINT).withValue("true").withEffect("PreferNoSchedule").build())));
    }

    private static void cordonedDrainingAndRestarting(KubeSeam seam) {
        seam.edit(n -> {
            n.getSpec().setUnschedulable(true);
            Map<String, String> a = n.getMetadata().getAnnotations();
            a.put(NodeMarks.DRAIN_STARTED_AT, NodeMarks.instant(NOW.minusSeconds(300)));
            a.put(NodeMarks.EVICTION_ATTEMPTS, refused(2));
            a.put(NodeMarks.IN_PLACE_STARTED_AT, NodeMarks.instant(NOW.minusSeconds(200)));
            a.put(NodeMarks.KUBELET_RESTART_AT, NodeMarks.instant(NOW.minusSeconds(100)));
        });
    }

    private static void drained(KubeSeam seam) {
        seam.edit(n -> {
            n.getSpec().setUnschedulable(true);
            n.getMetadata().getAnnotations().put(NodeMarks.DRAIN_STARTED_AT, NodeMarks.instant(NOW.minusSeconds(300)));
        });
    }

    private static void blockedPod(KubeSeam seam) {
        seam.edit(n -> {
            n.getSpec().setUnschedulable(true);
            Map<String, String> a = n.getMetadata().getAnnotations();
            a.put(NodeMarks.DRAIN_STARTED_AT, NodeMarks.instant(NOW.minusSeconds(300)));
            a.put(NodeMarks.EVICTION_ATTEMPTS, refused(5));
        });
        seam.pod("app-0", "app");
    }

    /** Pod app-0's eviction refused this many times by web-pdb, last a minute ago. */
    private static String refused(int attempts) {
        return NodeMarks.evictionAttempts(Map.of("app-0", new NodeMarks.EvictionAttempt("web-pdb", attempts, Optional.of(NOW.minusSeconds(60)))));
    }

    // ---- reading -----------------------------------------------------------------------------

    /** The start as the observer reads it, once its caches hold the node and every pod on it. */
    private List<ObservedNode> awaitStart() {
        int pods = seam.kube.client().pods().inAnyNamespace().list().getItems().size();
        await().atMost(Duration.ofSeconds(10)).until(() -> seam.observed().stream().anyMatch(n -> n.name().equals(NODE))
                && seam.observer.evictablePods(NODE).size() == pods);
        return seam.observed();
    }

    private static ObservedNode node(List<ObservedNode> nodes) {
        return nodes.stream().filter(n -> n.name().equals(NODE)).findFirst().orElseThrow();
    }

    /** The machines besides the start node, by what the step gave them (their names are the cloud's). */
    private static Object newMachines(List<ObservedNode> nodes) {
        return nodes.stream().filter(n -> !n.name().equals(NODE))
                .map(n -> List.of(n.registered(), n.rollHash(), n.kubeletHash(), n.surgeFor())).toList();
    }
}
