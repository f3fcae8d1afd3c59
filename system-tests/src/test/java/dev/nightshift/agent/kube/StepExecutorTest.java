package dev.nightshift.agent.kube;

import static dev.nightshift.agent.kube.KubeSeam.NODE;
import static dev.nightshift.agent.kube.KubeSeam.POOL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.agent.kube.NodeMarks.EvictionAttempt;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.strategies.EvictionBackoff;
import dev.nightshift.strategies.plan.Step;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;

/**
 * The executor against the embedded API and the simulated cloud, one behaviour per test, judged
 * from what the API server stored and the requests it saw.
 */
class StepExecutorTest {

    /** The pool's spec for machines the cloud is asked for; the hashes come with each request. */
    private static final dev.nightshift.spec.model.ResolvedPool WEB_SPEC = dev.nightshift.agent.TestClusters.oneWebPool().pools().get(0).spec();

    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
    private static final StampedHash OLD = new StampedHash(1, "0".repeat(32));
    private static final StampedHash NEW = new StampedHash(1, "1".repeat(32));

    @AutoClose
    private final KubeSeam seam = new KubeSeam(Clock.fixed(NOW, ZoneOffset.UTC), KubeSeam.slowCloud(), OLD, OLD);

    private Map<String, String> annotations() {
        return NodeMarks.annotations(seam.node());
    }

    private void observing() throws Exception {
        seam.startObserving();
        seam.kube.clearRequests();
    }

    @Test
    void aCordonOfACordonedNodeWritesNothing() throws Exception {
        seam.edit(n -> n.getSpec().setUnschedulable(true));
        observing();

        seam.executor.execute(new Step.Cordon(NODE, POOL));

        assertThat(seam.writes()).isEmpty();
    }

    @Test
    void theUpdateTaintIsAddedAndRemovedWhileAnotherClientsTaintStays() throws Exception {
        Taint theirs = new TaintBuilder().withKey("example.com/dedicated").withValue("ops").withEffect("NoSchedule").build();
        seam.edit(n -> n.getSpec().setTaints(java.util.List.of(theirs)));
        observing();

        seam.executor.execute(new Step.Taint(NODE, POOL));
        assertThat(NodeMarks.taints(seam.node())).extracting(Taint::getKey, Taint::getEffect).containsExactlyInAnyOrder(
                tuple("example.com/dedicated", "NoSchedule"), tuple(NodeMarks.UPDATE_TAINT, NodeMarks.UPDATE_TAINT_EFFECT));

        seam.executor.execute(new Step.Untaint(NODE, POOL));
        assertThat(NodeMarks.taints(seam.node())).containsExactly(theirs);
    }

    @Test
    void aRepeatedDrainKeepsTheTimeTheFirstOneStarted() throws Exception {
        Instant earlier = NOW.minusSeconds(600);
        seam.edit(n -> n.getMetadata().getAnnotations().put(NodeMarks.DRAIN_STARTED_AT, NodeMarks.instant(earlier)));
        observing();

        seam.executor.execute(new Step.Drain(NODE, POOL));

        assertThat(NodeMarks.instant(annotations().get(NodeMarks.DRAIN_STARTED_AT))).contains(earlier);
    }

    @Test
    void aDrainEvictsThePodsOnTheNodeAndStampsItsStart() throws Exception {
        seam.pod("app-0", "app");
        observing();
        await().until(() -> seam.observer.evictablePods(NODE).size() == 1);

        Optional<StepExecutor.Outcome> outcome = seam.executor.execute(new Step.Drain(NODE, POOL));

        assertThat(outcome).hasValueSatisfying(o -> assertThat(o.evictions()).isEqualTo(new StepExecutor.Evictions(1, 0, 0)));
        assertThat(seam.kube.client().pods().inNamespace("shop").withName("app-0").get()).isNull();
        assertThat(NodeMarks.instant(annotations().get(NodeMarks.DRAIN_STARTED_AT))).contains(NOW);
    }

    /** Drain passes handed over as the agent hands them to their threads, run only when the test says so. */
    private static final class HeldPasses implements java.util.concurrent.Executor {
        private final java.util.List<Runnable> held = new java.util.ArrayList<>();

        @Override
        public synchronized void execute(Runnable pass) {
            held.add(pass);
        }

        void runAll() {
            java.util.List<Runnable> now;
            synchronized (this) {
                now = java.util.List.copyOf(held);
                held.clear();
            }
            now.forEach(Runnable::run);
        }
    }

    @Test
    void aDrainOffTheCallersThreadReturnsBeforeItsPassHasEvictedAnythingAndItsOutcomeComesOnceItHas() throws Exception {
        seam.pod("app-0", "app");
        observing();
        await().until(() -> seam.observer.evictablePods(NODE).size() == 1);
        HeldPasses threads = new HeldPasses();
        StepExecutor executor = seam.executorWith(DrainPasses.on(threads));

        Optional<StepExecutor.Outcome> started = executor.execute(new Step.Drain(NODE, POOL));

        assertThat(started).isEmpty();
        assertThat(seam.writes()).as("nothing sent before the pass runs").isEmpty();
        assertThat(seam.kube.client().pods().inNamespace("shop").withName("app-0").get()).isNotNull();
        threads.runAll();
        assertThat(seam.kube.client().pods().inNamespace("shop").withName("app-0").get()).isNull();
        assertThat(NodeMarks.instant(annotations().get(NodeMarks.DRAIN_STARTED_AT))).contains(NOW);
        assertThat(executor.finishedDrains()).singleElement()
                .satisfies(o -> assertThat(o.evictions()).isEqualTo(new StepExecutor.Evictions(1, 0, 0)));
    }

    @Test
    void aMachineDeletionWaitsWhileItsNodesDrainPassRunsAndGoesOnceItHasFinished() throws Exception {
        seam.edit(n -> n.getSpec().setUnschedulable(true));
        observing();
        HeldPasses threads = new HeldPasses();
        StepExecutor executor = seam.executorWith(DrainPasses.on(threads));
        Step.DeleteMachine delete = new Step.DeleteMachine(NODE, POOL, true, new DesiredPool(WEB_SPEC, NEW, NEW));
        executor.execute(new Step.Drain(NODE, POOL));

        assertThat(executor.execute(delete)).isEmpty();
        assertThat(seam.provider.machines(POOL)).extracting(m -> m.name()).contains(NODE);

        threads.runAll();
        assertThat(executor.execute(delete)).isPresent();
        assertThat(seam.provider.machines(POOL)).extracting(m -> m.name()).doesNotContain(NODE);
    }

    @Test
    void anEvictionABudgetRefusesIsCountedOnTheNodeWithTheTimeOfTheRefusal() throws Exception {
        seam.pod("db-0", "db");
        seam.noDisruptionOf("db");
        observing();
        await().until(() -> seam.observer.evictablePods(NODE).size() == 1);

        Optional<StepExecutor.Outcome> outcome = seam.executor.execute(new Step.Drain(NODE, POOL));

        assertThat(outcome).hasValueSatisfying(o -> assertThat(o.evictions()).isEqualTo(new StepExecutor.Evictions(0, 1, 0)));
        assertThat(NodeMarks.evictionAttempts(annotations().get(NodeMarks.EVICTION_ATTEMPTS)))
                .isEqualTo(Map.of("db-0", new EvictionAttempt("db-pdb", 1, Optional.of(NOW))));
    }

    @Test
    void aPodRefusedLessThanItsBackoffAgoIsNotAskedAgain() throws Exception {
        seam.pod("db-0", "db");
        Instant refused = NOW.minus(EvictionBackoff.after(3)).plusSeconds(1);
        seam.edit(n -> {
            n.getMetadata().getAnnotations().put(NodeMarks.DRAIN_STARTED_AT, NodeMarks.instant(NOW.minusSeconds(3600)));
            n.getMetadata().getAnnotations().put(NodeMarks.EVICTION_ATTEMPTS,
                    NodeMarks.evictionAttempts(Map.of("db-0", new EvictionAttempt("db-pdb", 3, Optional.of(refused)))));
        });
        observing();
        await().until(() -> seam.observer.evictablePods(NODE).size() == 1);

        assertThat(seam.executor.execute(new Step.Drain(NODE, POOL))).isEmpty();
        assertThat(seam.writes()).isEmpty();
    }

    @Test
    void aForceDeletedPodIsGoneAndItsRefusalsAreForgotten() throws Exception {
        seam.pod("db-0", "db");
        seam.pod("db-1", "db");
        seam.edit(n -> n.getMetadata().getAnnotations().put(NodeMarks.EVICTION_ATTEMPTS, NodeMarks.evictionAttempts(Map.of(
                "db-0", new EvictionAttempt("db-pdb", 5, Optional.of(NOW)), "db-1", new EvictionAttempt("db-pdb", 2, Optional.of(NOW))))));
        observing();
        await().until(() -> seam.observer.evictablePods(NODE).size() == 2);

        seam.executor.execute(new Step.ForceDeletePod(NODE, POOL, "db-0"));

        assertThat(seam.kube.client().pods().inNamespace("shop").withName("db-0").get()).isNull();
        assertThat(NodeMarks.evictionAttempts(annotations().get(NodeMarks.EVICTION_ATTEMPTS))).containsOnlyKeys("db-1");
    }

    @Test
    void aCordonWritesNightshiftsMarkInTheSamePatch() throws Exception {
        observing();

        seam.executor.execute(new Step.Cordon(NODE, POOL));

        assertThat(seam.writes()).hasSize(1);
        assertThat(seam.node().getSpec().getUnschedulable()).isTrue();
        assertThat(annotations()).containsEntry(NodeMarks.CORDONED_AT, NodeMarks.instant(NOW));
    }

    @Test
    void anUncordonLeavesSomeoneElsesCordonAndRemovesOnlyNightshiftsMarks() throws Exception {
        seam.edit(n -> {
            n.getSpec().setUnschedulable(true);
            n.getMetadata().getAnnotations().put(NodeMarks.DRAIN_STARTED_AT, NodeMarks.instant(NOW));
        });
        observing();

        seam.executor.execute(new Step.Uncordon(NODE, POOL));

        assertThat(seam.node().getSpec().getUnschedulable()).as("the operator's cordon").isTrue();
        assertThat(annotations()).doesNotContainKey(NodeMarks.DRAIN_STARTED_AT);
    }

    @Test
    void anUncordonLiftsTheCordonAndRemovesNightshiftsTimersButNoOtherAnnotation() throws Exception {
        seam.edit(n -> {
            n.getSpec().setUnschedulable(true);
            Map<String, String> a = n.getMetadata().getAnnotations();
            a.put(NodeMarks.CORDONED_AT, NodeMarks.instant(NOW));
            a.put("example.com/owner", "ops");
            a.put(NodeMarks.DRAIN_STARTED_AT, NodeMarks.instant(NOW));
            a.put(NodeMarks.EVICTION_ATTEMPTS, NodeMarks.evictionAttempts(Map.of("db-0", new EvictionAttempt("db-pdb", 1, Optional.of(NOW)))));
            a.put(NodeMarks.IN_PLACE_STARTED_AT, NodeMarks.instant(NOW));
            a.put(NodeMarks.IN_PLACE_TARGET, NEW.value());
            a.put(NodeMarks.KUBELET_RESTART_AT, NodeMarks.instant(NOW));
        });
        observing();

        seam.executor.execute(new Step.Uncordon(NODE, POOL));

        assertThat(seam.node().getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE);
        assertThat(annotations()).doesNotContainKeys(NodeMarks.CORDONED_AT, NodeMarks.DRAIN_STARTED_AT, NodeMarks.EVICTION_ATTEMPTS,
                NodeMarks.IN_PLACE_STARTED_AT, NodeMarks.IN_PLACE_TARGET, NodeMarks.KUBELET_RESTART_AT)
                .containsEntry("example.com/owner", "ops").containsEntry(NodeMarks.ROLL_HASH, OLD.value());
    }

    @Test
    void anInPlaceUpdateAskedAgainForTheSameTargetKeepsItsStartTime() throws Exception {
        Instant earlier = NOW.minusSeconds(300);
        seam.edit(n -> {
            n.getMetadata().getAnnotations().put(NodeMarks.IN_PLACE_TARGET, NEW.value());
            n.getMetadata().getAnnotations().put(NodeMarks.IN_PLACE_STARTED_AT, NodeMarks.instant(earlier));
        });
        observing();

        seam.executor.execute(new Step.UpdateInPlace(NODE, POOL, new DesiredPool(WEB_SPEC, NEW, NEW)));

        assertThat(NodeMarks.instant(annotations().get(NodeMarks.IN_PLACE_STARTED_AT))).contains(earlier);
        assertThat(seam.writes()).noneMatch(r -> r.resourcePath().equals("/api/v1/nodes/" + NODE));
    }

    @Test
    void aKubeletRestartPlannedFromAStaleViewRestartsNothing() throws Exception {
        Instant answeredMeanwhile = NOW.minusSeconds(30);
        seam.edit(n -> n.getMetadata().getAnnotations().put(NodeMarks.KUBELET_RESTART_AT, NodeMarks.instant(answeredMeanwhile)));
        observing();

        Optional<StepExecutor.Outcome> outcome = seam.executor.execute(
                new Step.RestartKubelet(NODE, POOL, new DesiredPool(WEB_SPEC, NEW, NEW), Optional.of(NOW.minusSeconds(900))));

        assertThat(outcome).isEmpty();
        assertThat(seam.writes()).isEmpty();
        assertThat(NodeMarks.instant(annotations().get(NodeMarks.KUBELET_RESTART_AT))).contains(answeredMeanwhile);
    }

    @Test
    void aKubeletRestartPlannedBeforeTheNodeUpdaterMarkedTheNodeFailedIsNotAskedAgain() throws Exception {
        // The restart went unanswered for healthTimeout, and the updater marked it failed in the same moment: a plan from
        // a cache that has not seen the mark yet asks again; the node as the API has it says the pool stops there.
        Instant asked = NOW.minusSeconds(900);
        seam.edit(n -> {
            n.getMetadata().getAnnotations().put(NodeMarks.KUBELET_RESTART_AT, NodeMarks.instant(asked));
            n.getMetadata().getAnnotations().put(NodeMarks.IN_PLACE_FAILED, "true");
        });
        observing();

        Optional<StepExecutor.Outcome> outcome = seam.executor.execute(
                new Step.RestartKubelet(NODE, POOL, new DesiredPool(WEB_SPEC, NEW, NEW), Optional.of(asked)));

        assertThat(outcome).isEmpty();
        assertThat(seam.writes()).isEmpty();
        assertThat(NodeMarks.instant(annotations().get(NodeMarks.KUBELET_RESTART_AT))).contains(asked);
    }

    @Test
    void anInPlaceUpdatePlannedBeforeTheNodeUpdaterMarkedTheNodeFailedIsNotStartedAgain() throws Exception {
        seam.edit(n -> {
            n.getMetadata().getAnnotations().put(NodeMarks.IN_PLACE_TARGET, NEW.value());
            n.getMetadata().getAnnotations().put(NodeMarks.IN_PLACE_STARTED_AT, NodeMarks.instant(NOW.minusSeconds(300)));
            n.getMetadata().getAnnotations().put(NodeMarks.IN_PLACE_FAILED, "true");
        });
        observing();

        Optional<StepExecutor.Outcome> outcome = seam.executor.execute(new Step.UpdateInPlace(NODE, POOL, new DesiredPool(WEB_SPEC, NEW, NEW)));

        assertThat(outcome).isEmpty();
        assertThat(seam.writes()).isEmpty();
    }

    @Test
    void aStampOfARegisteredNodeWritesTheHashesAndOfAMachineWithoutANodeGoesToTheProvider() throws Exception {
        seam.provider.create(new DesiredPool(WEB_SPEC, OLD, OLD), null);
        String bastion = seam.provider.machines(POOL).stream().map(m -> m.name()).filter(n -> !n.equals(NODE)).findFirst().orElseThrow();
        observing();

        seam.executor.execute(new Step.Stamp(NODE, POOL, NEW, NEW, false));
        seam.executor.execute(new Step.Stamp(bastion, POOL, NEW, NEW, true));

        assertThat(NodeMarks.rollHash(annotations())).contains(NEW);
        assertThat(seam.provider.machines(POOL)).filteredOn(m -> m.name().equals(bastion)).singleElement()
                .satisfies(m -> assertThat(m.rollHash()).isEqualTo(NEW));
    }

    @Test
    void aMachinePlannedAsUnregisteredWhoseNodeIsReadyAndSchedulableNowIsNotDeleted() throws Exception {
        // The plan saw no node (or a stale one); the API server has it Ready and schedulable: pods may be landing there.
        observing();

        Optional<StepExecutor.Outcome> outcome = seam.executor.execute(new Step.DeleteMachine(NODE, POOL, true,
                new DesiredPool(WEB_SPEC, NEW, NEW)));

        assertThat(outcome).isEmpty();
        assertThat(seam.provider.machines(POOL)).extracting(m -> m.name()).contains(NODE);
        assertThat(seam.kube.client().nodes().withName(NODE).get()).isNotNull();
    }

    @Test
    void aMachinePlannedAsUnregisteredWhoseNodeStillCarriesTheStartupTaintIsDeleted() throws Exception {
        // Registered since the plan, but not yet seen: nothing can be scheduled there, so there is nothing to drain.
        seam.edit(n -> n.getSpec().setTaints(java.util.List.of(startupTaint())));
        observing();

        Optional<StepExecutor.Outcome> outcome = seam.executor.execute(new Step.DeleteMachine(NODE, POOL, true,
                new DesiredPool(WEB_SPEC, NEW, NEW)));

        assertThat(outcome).isPresent();
        assertThat(seam.provider.machines(POOL)).extracting(m -> m.name()).doesNotContain(NODE);
    }

    @Test
    void settleTakesTheStartupTaintOffANodeSeenWithItsMachineAndLeavesItsOtherTaints() throws Exception {
        Taint dedicated = new TaintBuilder().withKey("dedicated").withValue("web").withEffect("NoSchedule").build();
        seam.edit(n -> n.getSpec().setTaints(java.util.List.of(dedicated, startupTaint())));
        observing();

        seam.executor.settle(new DesiredPool(WEB_SPEC, OLD, OLD), seam.observer.unmarked(POOL));

        assertThat(seam.node().getSpec().getTaints()).extracting(Taint::getKey).containsExactly("dedicated");
        assertThat(seam.writes()).hasSize(1);
    }

    @Test
    void settleGivesANodeTheSurgePartnerItsMachineWasGivenSinceAndKeepsItsOtherMarks() throws Exception {
        // A Cluster API stand-in whose partner's Machine went behind Nightshift's back stands in for web-7 now.
        seam.edit(n -> n.getMetadata().getAnnotations().put(NodeMarks.SURGE_FOR, "web-0"));
        observing();
        dev.nightshift.agent.provider.Machine machine = new dev.nightshift.agent.provider.Machine(NODE, POOL, NOW, NEW, NEW,
                Optional.of("web-7"), true, Optional.of(NODE), false, false, 0);
        assertThat(ClusterObserver.newPartner(machine, seam.node())).isTrue();

        seam.executor.settle(new DesiredPool(WEB_SPEC, NEW, NEW), java.util.List.of(machine));

        assertThat(annotations()).containsEntry(NodeMarks.SURGE_FOR, "web-7");
        assertThat(NodeMarks.rollHash(annotations())).as("a registered node's hashes stay its own").contains(OLD);
        assertThat(seam.writes()).hasSize(1);
        seam.kube.clearRequests();
        await().until(() -> !ClusterObserver.newPartner(machine, seam.observer.node(NODE).orElseThrow()));
        seam.executor.settle(new DesiredPool(WEB_SPEC, NEW, NEW), java.util.List.of(machine));
        assertThat(seam.writes()).as("given already").isEmpty();
    }

    private static Taint startupTaint() {
        return new TaintBuilder().withKey(NodeMarks.STARTUP_TAINT).withValue(NodeMarks.STARTUP_TAINT_VALUE)
                .withEffect(NodeMarks.STARTUP_TAINT_EFFECT).build();
    }

    @Test
    void aDrainedNodesMachineIsDeleted() throws Exception {
        seam.edit(n -> n.getSpec().setUnschedulable(true));
        observing();

        Optional<StepExecutor.Outcome> outcome = seam.executor.execute(new Step.DeleteMachine(NODE, POOL, true,
                new DesiredPool(WEB_SPEC, NEW, NEW)));

        assertThat(outcome).isPresent();
        assertThat(seam.provider.machines(POOL)).extracting(m -> m.name()).doesNotContain(NODE);
    }

    @Test
    void aValidationSendsNothingToTheCluster() throws Exception {
        observing();

        assertThat(seam.executor.execute(new Step.Validate(POOL))).isEmpty();
        assertThat(seam.kube.requests()).extracting(RecordedRequest::method).doesNotContain("PATCH", "POST", "PUT", "DELETE");
    }

    @Test
    void aStepForANodeThatIsGoneChangesNothing() throws Exception {
        observing();

        for (Step step : java.util.List.<Step>of(new Step.Cordon("gone-1", POOL), new Step.Taint("gone-1", POOL),
                new Step.Drain("gone-1", POOL), new Step.LabelCandidate("gone-1", POOL))) {
            seam.executor.execute(step);
        }

        assertThat(seam.writes()).isEmpty();
    }
}
