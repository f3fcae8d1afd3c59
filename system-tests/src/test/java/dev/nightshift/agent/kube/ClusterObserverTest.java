package dev.nightshift.agent.kube;

import static dev.nightshift.agent.kube.KubeSeam.NODE;
import static dev.nightshift.agent.kube.KubeSeam.POOL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.agent.kube.NodeMarks.EvictionAttempt;
import dev.nightshift.agent.provider.Machine;
import dev.nightshift.agent.provider.MachineProvider;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.spec.model.Taint;
import dev.nightshift.spec.model.TaintEffect;
import dev.nightshift.strategies.model.BlockedEviction;
import dev.nightshift.strategies.model.ObservedNode;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;

/** What the observer reads from the embedded API and the simulated cloud, one behaviour per test. */
class ClusterObserverTest {

    /** The pool's spec for machines the cloud is asked for; the hashes come with each request. */
    private static final dev.nightshift.spec.model.ResolvedPool WEB_SPEC = dev.nightshift.agent.TestClusters.oneWebPool().pools().get(0).spec();

    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
    private static final StampedHash OLD = new StampedHash(1, "0".repeat(32));
    private static final StampedHash NEW = new StampedHash(1, "1".repeat(32));

    @AutoClose
    private final KubeSeam seam = new KubeSeam(Clock.fixed(NOW, ZoneOffset.UTC), KubeSeam.slowCloud(), OLD, OLD);

    /** The seeded node once the observer's cache shows {@code until} of it. */
    private ObservedNode observedOnce(java.util.function.Predicate<ObservedNode> until) throws Exception {
        seam.startObserving();
        await().until(() -> seam.observed().stream().anyMatch(n -> n.name().equals(NODE) && until.test(n)));
        return seam.observedNode();
    }

    @Test
    void everyMarkOnANodeIsReadIntoTheObservedNode() throws Exception {
        seam.edit(n -> {
            n.getSpec().setUnschedulable(true);
            n.getMetadata().getLabels().putAll(Map.of("team", "web", NodeMarks.NEEDS_UPDATE, "true",
                    NodeMarks.CANDIDATE_FOR_UPDATE, "true", NodeMarks.SELECTED_FOR_UPDATE, "true"));
            Map<String, String> a = n.getMetadata().getAnnotations();
            a.putAll(NodeMarks.hashes(NEW, OLD));
            a.put(NodeMarks.SURGE_FOR, "web-0");
            a.put(NodeMarks.DRAIN_STARTED_AT, NodeMarks.instant(NOW.minusSeconds(60)));
            a.put(NodeMarks.EVICTION_ATTEMPTS, NodeMarks.evictionAttempts(Map.of("db-0", new EvictionAttempt("db-pdb", 2, Optional.of(NOW)))));
            a.put(NodeMarks.IN_PLACE_STARTED_AT, NodeMarks.instant(NOW.minusSeconds(30)));
            a.put(NodeMarks.IN_PLACE_FAILED, "true");
            a.put(NodeMarks.KUBELET_RESTART_AT, NodeMarks.instant(NOW.minusSeconds(10)));
            a.put(NodeMarks.MANAGED_LABELS, NodeMarks.managedLabels(List.of("team", "gone")));
            a.put(NodeMarks.MANAGED_TAINTS, NodeMarks.managedTaints(List.of(new Taint("dedicated", "web", TaintEffect.NoSchedule))));
            a.put("example.com/owner", "ops");
            a.put(NodeMarks.MANAGED_ANNOTATIONS, NodeMarks.managedAnnotations(List.of("example.com/owner")));
        });

        ObservedNode n = observedOnce(ObservedNode::cordoned);

        assertThat(n.pool()).isEqualTo(POOL);
        assertThat(n.rollHash()).contains(NEW);
        assertThat(n.kubeletHash()).contains(OLD);
        assertThat(n.registered()).isTrue();
        assertThat(n.ready()).isTrue();
        assertThat(n.needsUpdate()).isTrue();
        assertThat(n.candidateForUpdate()).isTrue();
        assertThat(n.selectedForUpdate()).isTrue();
        assertThat(n.surgeFor()).contains("web-0");
        assertThat(n.drainStartedAt()).contains(NOW.minusSeconds(60));
        assertThat(n.drained()).as("no pod is left on it").isTrue();
        assertThat(n.blockedEvictions()).containsExactly(new BlockedEviction("db-0", "db-pdb", 2));
        assertThat(n.inPlaceStartedAt()).contains(NOW.minusSeconds(30));
        assertThat(n.inPlaceFailed()).isTrue();
        assertThat(n.kubeletRestartAt()).contains(NOW.minusSeconds(10));
        assertThat(n.managedLabels()).as("only the managed labels the node still carries").isEqualTo(Map.of("team", "web"));
        assertThat(n.managedTaints()).containsExactly(new Taint("dedicated", "web", TaintEffect.NoSchedule));
        assertThat(n.managedAnnotations()).isEqualTo(Map.of("example.com/owner", "ops"));
    }

    @Test
    void marksSomeoneElseBrokeReadAsAbsentAndDoNotStopTheObserver() throws Exception {
        seam.edit(n -> n.getMetadata().getAnnotations().putAll(Map.of(
                NodeMarks.ROLL_HASH_VERSION, "latest", NodeMarks.DRAIN_STARTED_AT, "just now",
                NodeMarks.EVICTION_ATTEMPTS, "{oops", NodeMarks.MANAGED_TAINTS, "[\"no-effect\"]",
                NodeMarks.MANAGED_LABELS, "team")));

        ObservedNode n = observedOnce(o -> o.rollHash().map(StampedHash::version).orElse(-1) == NodeMarks.UNKNOWN_HASH_VERSION);

        assertThat(n.rollHash()).contains(new StampedHash(NodeMarks.UNKNOWN_HASH_VERSION, OLD.value()));
        assertThat(n.draining()).isFalse();
        assertThat(n.blockedEvictions()).isEmpty();
        assertThat(n.managedTaints()).isEmpty();
        assertThat(n.managedLabels()).isEmpty();
    }

    /** Pods on a node whose drain started, and whether the drain still waits for them. */
    enum PodOnNode {
        ORDINARY(p -> p, false),
        DAEMON_SET(p -> new PodBuilder(p).editMetadata().addNewOwnerReference().withApiVersion("apps/v1").withKind("DaemonSet")
                .withName("agent").withUid("u").endOwnerReference().endMetadata().build(), true),
        MIRROR(p -> new PodBuilder(p).editMetadata().addToAnnotations("kubernetes.io/config.mirror", "abc").endMetadata().build(), true),
        SUCCEEDED(p -> new PodBuilder(p).editStatus().withPhase("Succeeded").endStatus().build(), true),
        FAILED(p -> new PodBuilder(p).editStatus().withPhase("Failed").endStatus().build(), true);

        final UnaryOperator<Pod> shape;
        final boolean drained;

        PodOnNode(UnaryOperator<Pod> shape, boolean drained) {
            this.shape = shape;
            this.drained = drained;
        }
    }

    @ParameterizedTest
    @EnumSource(PodOnNode.class)
    void aDrainIsFinishedOnceOnlyPodsADrainLeavesAreOnTheNode(PodOnNode kind) throws Exception {
        Pod pod = new PodBuilder().withNewMetadata().withName("p-0").withNamespace("shop").endMetadata().withNewSpec()
                .withNodeName(NODE).addNewContainer().withName("c").withImage("c").endContainer().endSpec()
                .withNewStatus().withPhase("Running").endStatus().build();
        seam.kube.client().pods().inNamespace("shop").resource(kind.shape.apply(pod)).create();
        seam.edit(n -> n.getMetadata().getAnnotations().put(NodeMarks.DRAIN_STARTED_AT, NodeMarks.instant(NOW)));
        seam.startObserving();

        await().until(() -> seam.observer.evictablePods(NODE).size() == (kind.drained ? 0 : 1)
                && seam.observedNode().draining());
        assertThat(seam.observedNode().drained()).isEqualTo(kind.drained);
    }

    @Test
    void podsOfJobsInTheNodeUpdatesNamespaceAreNeitherEvictedNorWaitedForButOtherJobsPodsAre() throws Exception {
        java.util.function.BiFunction<String, String, Pod> jobPod = (namespace, name) -> new PodBuilder().withNewMetadata()
                .withName(name).withNamespace(namespace).addToLabels("batch.kubernetes.io/job-name", name)
                .addNewOwnerReference().withApiVersion("batch/v1").withKind("Job").withName(name).withUid("u-" + name).endOwnerReference()
                .endMetadata().withNewSpec().withNodeName(NODE).addNewContainer().withName("c").withImage("c").endContainer().endSpec()
                .withNewStatus().withPhase("Running").endStatus().build();
        seam.kube.client().pods().inNamespace("nightshift-node-updates")
                .resource(jobPod.apply("nightshift-node-updates", "nightshift-kubelet-web-1-0123456789")).create();
        seam.kube.client().pods().inNamespace("shop").resource(jobPod.apply("shop", "nightly-report")).create();
        seam.edit(n -> n.getMetadata().getAnnotations().put(NodeMarks.DRAIN_STARTED_AT, NodeMarks.instant(NOW)));

        try (ClusterObserver observer = new ClusterObserver(seam.kube.client(), "nightshift-system", seam.provider, () -> { },
                Clock.fixed(NOW, ZoneOffset.UTC), java.util.Optional.of("nightshift-node-updates"))) {
            observer.start();
            await().until(() -> observer.evictablePods(NODE).size() == 1);
            assertThat(observer.evictablePods(NODE)).extracting(p -> p.getMetadata().getName()).containsExactly("nightly-report");
        }
    }

    @Test
    void aMachineTheProviderReportsThatNeverRegisteredJoinsAsAnUnregisteredNode() throws Exception {
        seam.provider.create(new DesiredPool(WEB_SPEC, NEW, NEW), NODE);
        seam.startObserving();

        assertThat(seam.observed()).filteredOn(n -> !n.name().equals(NODE)).singleElement().satisfies(m -> {
            assertThat(m.registered()).isFalse();
            assertThat(m.ready()).isFalse();
            assertThat(m.rollHash()).contains(NEW);
            assertThat(m.surgeFor()).contains(NODE);
            assertThat(m.createdAt()).contains(NOW);
        });
    }

    @Test
    void theControlPlaneIsReadyOnlyWhileEveryControlPlaneNodeIsReady() throws Exception {
        seam.startObserving();
        assertThat(seam.observer.controlPlaneNodesReady()).as("no control-plane node shown").isTrue();

        seam.kube.client().nodes().resource(new NodeBuilder().withNewMetadata().withName("cp-1")
                .addToLabels(ClusterObserver.CONTROL_PLANE_ROLE, "").endMetadata().withNewStatus().addNewCondition()
                .withType("Ready").withStatus("False").endCondition().endStatus().build()).create();

        await().until(() -> !seam.observer.controlPlaneNodesReady());
    }

    @Test
    void aPoolWhoseMachinesCannotBeListedIsToldAndTheOtherPoolsAreObservedWithTheirMachines() throws Exception {
        Machine unregistered = new Machine("db-new", "db", NOW, OLD, OLD, Optional.empty(), false, Optional.empty(), false, false, 0);
        MachineProvider failingForWeb = listing(pool -> {
            if (pool.equals(POOL)) {
                throw new IllegalStateException("the machine API answered 503 for " + pool);
            }
            return List.of(unregistered);
        });
        Map<String, String> failed = new java.util.TreeMap<>();
        try (ClusterObserver observer = new ClusterObserver(seam.kube.client(), "nightshift-system", failingForWeb, () -> { },
                Clock.fixed(NOW, ZoneOffset.UTC))) {
            observer.start();

            List<ObservedNode> observed = observer.observe(dev.nightshift.strategies.model.MaintenanceState.OPEN, true,
                    java.util.Set.of(POOL, "db"), (pool, e) -> failed.put(pool, e.getMessage())).nodes();

            assertThat(failed).containsExactly(Map.entry(POOL, "the machine API answered 503 for " + POOL));
            assertThat(observed).extracting(ObservedNode::name).contains("db-new");
        }
    }

    @Test
    void aSurgePartnerTheProviderGaveTheMachineSinceTheNodeWasMarkedIsTheObservedOneAndTheOtherMarksStayTheNodes() throws Exception {
        // Cluster API: the stand-in of a partner lost behind Nightshift's back stands in for web-7 now; its node still
        // names web-0. Read from the node, it would be a member for a pass and make the pool look one larger.
        seam.edit(n -> n.getMetadata().getAnnotations().put(NodeMarks.SURGE_FOR, "web-0"));
        Machine standIn = new Machine(NODE, POOL, NOW, NEW, NEW, Optional.of("web-7"), true, Optional.of(NODE), false, false, 0);
        MachineProvider givenAnotherPartner = listing(pool -> pool.equals(POOL) ? List.of(standIn) : List.of());
        try (ClusterObserver observer = new ClusterObserver(seam.kube.client(), "nightshift-system", givenAnotherPartner, () -> { },
                Clock.fixed(NOW, ZoneOffset.UTC))) {
            observer.start();
            await().until(() -> observer.node(NODE).map(n -> "web-0".equals(NodeMarks.annotations(n).get(NodeMarks.SURGE_FOR))).orElse(false));

            ObservedNode observed = observer.observe(dev.nightshift.strategies.model.MaintenanceState.OPEN, true, java.util.Set.of(POOL))
                    .nodes().stream().filter(n -> n.name().equals(NODE)).findFirst().orElseThrow();

            assertThat(observed.surgeFor()).contains("web-7");
            assertThat(observed.rollHash()).as("the node's own hash").contains(OLD);
            assertThat(observer.unmarked(POOL)).as("its node is written again").containsExactly(standIn);
        }
    }

    @Test
    void aMachineTheProviderReportsLeavingIsReadAsMarkedNeedsUpdateThoughItsNodeIsAtTheDesiredHashes() throws Exception {
        // Cluster API: a lost partner's stand-in stands in for this current Machine, one too many; it is to leave drained.
        Machine leaving = new Machine(NODE, POOL, NOW, NEW, NEW, Optional.empty(), true, Optional.of(NODE), false, false, 0, true);
        try (ClusterObserver observer = new ClusterObserver(seam.kube.client(), "nightshift-system",
                listing(pool -> pool.equals(POOL) ? List.of(leaving) : List.of()), () -> { }, Clock.fixed(NOW, ZoneOffset.UTC))) {
            observer.start();
            await().until(() -> observer.node(NODE).isPresent());

            ObservedNode observed = observer.observe(dev.nightshift.strategies.model.MaintenanceState.OPEN, true, java.util.Set.of(POOL))
                    .nodes().stream().filter(n -> n.name().equals(NODE)).findFirst().orElseThrow();

            assertThat(observed.needsUpdate()).isTrue();
            assertThat(NodeMarks.labels(observer.node(NODE).orElseThrow())).as("nothing is written to the node")
                    .doesNotContainKey(NodeMarks.NEEDS_UPDATE);
        }
    }

    @Test
    void aNodeChangeThatMattersTellsTheProviderItsPoolAndAHeartbeatDoesNot() throws Exception {
        seam.edit(n -> n.getStatus().setConditions(List.of(new io.fabric8.kubernetes.api.model.NodeConditionBuilder()
                .withType("Ready").withStatus("True").withLastHeartbeatTime("2026-03-01T09:00:00Z").build())));
        List<String> told = new java.util.concurrent.CopyOnWriteArrayList<>();
        class Recording implements MachineProvider, dev.nightshift.agent.provider.ListingCache {
            @Override
            public void refresh() {
            }

            @Override
            public void nodeChanged(String pool) {
                told.add("pool " + pool);
            }

            @Override
            public void nodeRegistered(String node) {
                told.add("registered " + node);
            }

            @Override
            public List<dev.nightshift.agent.provider.Machine> machines(String pool) {
                return List.of();
            }

            @Override
            public void create(DesiredPool pool, String surgeFor) {
            }

            @Override
            public Deletion delete(DesiredPool pool, String machine, boolean replace) {
                return Deletion.started("");
            }

            @Override
            public void stamp(String pool, String machine, StampedHash rollHash, StampedHash kubeletHash) {
            }
        }
        try (ClusterObserver observer = new ClusterObserver(seam.kube.client(), "nightshift-system", new Recording(), () -> { },
                Clock.fixed(NOW, ZoneOffset.UTC))) {
            observer.start();
            await().until(() -> told.contains("pool " + POOL));
            told.clear();

            seam.edit(n -> n.getStatus().getConditions().get(0).setLastHeartbeatTime("2026-03-01T09:00:10Z"));
            seam.edit(n -> n.getMetadata().getLabels().put("team", "web"));
            await().until(() -> !told.isEmpty());
            assertThat(told).as("the heartbeat came first and told nothing").containsExactly("pool " + POOL);

            seam.kube.client().nodes().resource(new NodeBuilder().withNewMetadata().withName("unlabelled-1").endMetadata().build()).create();
            await().until(() -> told.contains("registered unlabelled-1"));
        }
    }

    /** A provider that only lists machines, as {@code machines} answers; it changes nothing. */
    private static MachineProvider listing(java.util.function.Function<String, List<Machine>> machines) {
        return new MachineProvider() {
            @Override
            public List<Machine> machines(String pool) {
                return machines.apply(pool);
            }

            @Override
            public void create(DesiredPool pool, String surgeFor) {
            }

            @Override
            public Deletion delete(DesiredPool pool, String machine, boolean replace) {
                return Deletion.started("");
            }

            @Override
            public void stamp(String pool, String machine, StampedHash rollHash, StampedHash kubeletHash) {
            }
        };
    }
}
