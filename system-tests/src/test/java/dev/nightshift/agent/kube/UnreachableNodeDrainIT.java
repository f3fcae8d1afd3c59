package dev.nightshift.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import dev.nightshift.agent.provider.Machine;
import dev.nightshift.agent.provider.MachineProvider;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.model.ObservedNode;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * When a drain is done on a node whose kubelet stopped reporting (Ready Unknown): a pod being
 * deleted there is never confirmed gone, so once its deletionTimestamp is more than
 * {@link ClusterObserver#UNREACHABLE_POD_GRACE} past it no longer holds the drain, as in Cluster
 * API. A node that still reports, even NotReady, is waited for. One behaviour per test, against
 * the embedded API server; the pods carry a finalizer, so that a delete leaves them with a
 * deletionTimestamp, as an unreachable kubelet does.
 */
class UnreachableNodeDrainIT {

    private static final String NODE = "web-1";
    private static final String NS = "shop";

    private final EmbeddedKubernetes cluster = EmbeddedKubernetes.start();
    private final KubernetesClient client = cluster.client();
    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.now());
    private final ClusterObserver observer = new ClusterObserver(client, "nightshift-system", new NoMachines(), () -> { },
            new Clock() {
                @Override
                public ZoneId getZone() {
                    return ZoneOffset.UTC;
                }

                @Override
                public Clock withZone(ZoneId zone) {
                    return this;
                }

                @Override
                public Instant instant() {
                    return now.get();
                }
            });

    @AfterEach
    void stop() {
        observer.close();
        cluster.close();
    }

    /** A node of pool web that Nightshift started to drain, whose Ready condition has this status. */
    private void drainingNode(String ready) {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).addToLabels(NodeMarks.POOL, "web")
                .addToAnnotations(NodeMarks.DRAIN_STARTED_AT, Instant.now().minusSeconds(60).toString()).endMetadata()
                .withNewSpec().withUnschedulable(true).endSpec()
                .withNewStatus().addNewCondition().withType("Ready").withStatus(ready)
                .withLastTransitionTime(Instant.now().minus(Duration.ofMinutes(20)).toString()).endCondition().endStatus()
                .build()).create();
    }

    /** A running pod on the node; its finalizer keeps it, with a deletionTimestamp, once deleted. */
    private void pod(String name) {
        client.pods().inNamespace(NS).resource(new PodBuilder().withNewMetadata().withName(name).withNamespace(NS)
                .withFinalizers("example.com/hold").endMetadata()
                .withNewSpec().withNodeName(NODE).addNewContainer().withName("app").withImage("app:1").endContainer().endSpec()
                .withNewStatus().withPhase("Running").endStatus().build()).create();
    }

    /** Deletes the pod, as an eviction does, and returns its deletionTimestamp. */
    private Instant delete(String name) {
        client.pods().inNamespace(NS).withName(name).delete();
        Pod deleting = client.pods().inNamespace(NS).withName(name).get();
        assertThat(deleting).as("held by its finalizer").isNotNull();
        assertThat(deleting.getMetadata().getDeletionTimestamp()).isNotNull();
        return Instant.parse(deleting.getMetadata().getDeletionTimestamp());
    }

    /** The node as the observer hands it to the planner, once the caches hold the pods' last state. */
    private ObservedNode observed(String... deletingPods) throws Exception {
        observer.start();
        await().atMost(Duration.ofSeconds(20)).until(() -> observer.evictablePods(NODE).stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() != null).count() == deletingPods.length);
        return observer.observe(MaintenanceState.CLOSED, true, Set.of()).nodes().stream()
                .filter(n -> n.name().equals(NODE)).findFirst().orElseThrow();
    }

    @Test
    void onAnUnreachableNodeAPodDeletedMoreThanTheGraceAgoNoLongerHoldsTheDrain() throws Exception {
        drainingNode("Unknown");
        pod("app-1");
        Instant deleted = delete("app-1");
        now.set(deleted.plus(ClusterObserver.UNREACHABLE_POD_GRACE).plusSeconds(1));

        assertThat(observed("app-1").drained()).isTrue();
    }

    @Test
    void onAnUnreachableNodeAPodDeletedWithinTheGraceStillHoldsTheDrain() throws Exception {
        drainingNode("Unknown");
        pod("app-1");
        Instant deleted = delete("app-1");
        now.set(deleted.plusSeconds(2));

        assertThat(observed("app-1").drained()).isFalse();
    }

    @Test
    void onANodeThatStillReportsNotReadyAPodBeingDeletedHoldsTheDrain() throws Exception {
        drainingNode("False");
        pod("app-1");
        Instant deleted = delete("app-1");
        now.set(deleted.plus(Duration.ofMinutes(10)));

        assertThat(observed("app-1").drained()).isFalse();
    }

    @Test
    void onAnUnreachableNodeAPodNotYetDeletedHoldsTheDrain() throws Exception {
        drainingNode("Unknown");
        pod("app-1");
        pod("app-2");
        Instant deleted = delete("app-1");
        now.set(deleted.plus(Duration.ofMinutes(10)));

        assertThat(observed("app-1").drained()).as("app-2 was never asked to leave").isFalse();
    }

    /** The observer asks for machines only of the pools it is given; these tests give none. */
    private static final class NoMachines implements MachineProvider {
        @Override
        public List<Machine> machines(String pool) {
            return List.of();
        }

        @Override
        public void create(DesiredPool pool, String surgeFor) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Deletion delete(DesiredPool pool, String machine, boolean replace) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void stamp(String pool, String machine, StampedHash rollHash, StampedHash kubeletHash) {
            throw new UnsupportedOperationException();
        }
    }
}
