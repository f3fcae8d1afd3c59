package dev.nightshift.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.api.Assertions.tuple;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;

/**
 * What the pod cache keeps of a pod, and hands out for drains. The {@code workloadsAvailable} check follows the
 * Deployment or StatefulSet of every pod a drain evicted, found from the pod the cache hands out: a cache that dropped
 * the owner left the check with nothing to follow, so it passed whatever the workloads did.
 */
class PodSummaryTest {

    private static PodBuilder pod(String name) {
        return new PodBuilder().withNewMetadata().withNamespace("shop").withName(name).withResourceVersion("7")
                .addToLabels("app", "web").addToAnnotations("note", "dropped").endMetadata()
                .withNewSpec().withNodeName("web-1").addNewContainer().withName("web").withImage("web:1").endContainer().endSpec()
                .withNewStatus().withPhase("Running").endStatus();
    }

    private static Pod ownedBy(String name, String kind, String owner) {
        return pod(name).editMetadata().addNewOwnerReference().withApiVersion("apps/v1").withKind(kind).withName(owner)
                .withUid("uid-" + owner).withController(true).endOwnerReference().endMetadata().build();
    }

    @Test
    void aReplicaSetsPodIsHandedOutWithItsReplicaSetAndTemplateHash() {
        Pod original = ownedBy("web-7c9d8-x2x9q", "ReplicaSet", "web-7c9d8");
        original.getMetadata().getLabels().put("pod-template-hash", "7c9d8");

        Pod kept = PodSummary.of(original).toPod();

        assertThat(kept.getMetadata().getOwnerReferences()).extracting(OwnerReference::getKind, OwnerReference::getName)
                .containsExactly(tuple("ReplicaSet", "web-7c9d8"));
        assertThat(kept.getMetadata().getLabels()).containsExactly(entry("pod-template-hash", "7c9d8"));
        assertThat(kept.getSpec().getNodeName()).isEqualTo("web-1");
    }

    @Test
    void aStatefulSetsPodIsHandedOutWithItsStatefulSet() {
        Pod kept = PodSummary.of(ownedBy("cache-0", "StatefulSet", "cache")).toPod();

        assertThat(kept.getMetadata().getOwnerReferences()).extracting(OwnerReference::getKind, OwnerReference::getName)
                .containsExactly(tuple("StatefulSet", "cache"));
        assertThat(kept.getMetadata().getLabels()).isNullOrEmpty();
    }

    @Test
    void nothingElseOfThePodIsKept() {
        Pod kept = PodSummary.of(ownedBy("nightly-1", "Job", "nightly")).toPod();

        assertThat(kept.getMetadata().getOwnerReferences()).isNullOrEmpty();
        assertThat(kept.getMetadata().getLabels()).isNullOrEmpty();
        assertThat(kept.getMetadata().getAnnotations()).isNullOrEmpty();
        assertThat(kept.getSpec().getContainers()).isNullOrEmpty();
        assertThat(kept.getStatus().getPhase()).isEqualTo("Running");
    }
}
