package dev.nightshift.agent.kube;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;

/**
 * What the agent keeps of a pod: enough to tell whether a drain must evict it and wait for it, and nothing else. A
 * pod as the API serves it (containers, volumes, env, status, managed fields) takes kilobytes; this a few dozen bytes
 * besides its name, so that the pods of a large cluster fit in a small heap. Namespace, node and phase repeat across
 * pods and are shared ({@link String#intern()}).
 *
 * @param namespace         the pod's namespace
 * @param name              the pod's name
 * @param resourceVersion   the version the informer compares to tell an update from a repeat
 * @param node              {@code spec.nodeName}; null while unscheduled
 * @param deletionTimestamp set once the pod was evicted or deleted; null otherwise
 * @param phase             {@code status.phase}; null when not reported
 * @param daemonSet         owned by a DaemonSet: a drain leaves it
 * @param mirror            a static pod's mirror ({@code kubernetes.io/config.mirror}): a drain leaves it
 * @param job               owned by a Job, or labelled with a Job's name: a node updater's pod in the updates namespace
 * @param controllerKind    {@code ReplicaSet} or {@code StatefulSet} when one owns the pod, else null: the
 *                          {@code workloadsAvailable} check follows the Deployment or StatefulSet of each pod a drain
 *                          evicted, and reads it from the pod the store hands out
 * @param controllerName    that owner's name; null without one
 * @param templateHash      the {@code pod-template-hash} label of a ReplicaSet's pod (its Deployment's name is the
 *                          ReplicaSet's less it); null otherwise
 */
record PodSummary(String namespace, String name, String resourceVersion, String node, String deletionTimestamp, String phase,
                  boolean daemonSet, boolean mirror, boolean job, String controllerKind, String controllerName, String templateHash) {

    static final String MIRROR = "kubernetes.io/config.mirror";
    static final String TEMPLATE_HASH = "pod-template-hash";
    private static final List<String> WORKLOAD_CONTROLLERS = List.of("ReplicaSet", "StatefulSet");

    static PodSummary of(Pod pod) {
        ObjectMeta m = pod.getMetadata();
        boolean daemonSet = m.getOwnerReferences() != null && m.getOwnerReferences().stream().anyMatch(o -> "DaemonSet".equals(o.getKind()));
        boolean ownedByJob = m.getOwnerReferences() != null && m.getOwnerReferences().stream().anyMatch(o -> "Job".equals(o.getKind()));
        Map<String, String> labels = m.getLabels() == null ? Map.of() : m.getLabels();
        boolean mirror = m.getAnnotations() != null && m.getAnnotations().containsKey(MIRROR);
        String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        // Shared too: the pods of one ReplicaSet or StatefulSet repeat its name and hash.
        Optional<OwnerReference> controller = m.getOwnerReferences() == null ? Optional.empty() : m.getOwnerReferences().stream()
                .filter(o -> WORKLOAD_CONTROLLERS.contains(o.getKind()) && o.getName() != null).findFirst();
        String kind = controller.map(OwnerReference::getKind).map(PodSummary::shared).orElse(null);
        String hash = "ReplicaSet".equals(kind) ? shared(labels.get(TEMPLATE_HASH)) : null;
        return new PodSummary(shared(m.getNamespace()), m.getName(), m.getResourceVersion(), shared(node), m.getDeletionTimestamp(),
                shared(phase), daemonSet, mirror,
                ownedByJob || labels.containsKey("job-name") || labels.containsKey("batch.kubernetes.io/job-name"),
                kind, controller.map(OwnerReference::getName).map(PodSummary::shared).orElse(null), hash);
    }

    /** Not a DaemonSet's, not a mirror pod, not finished: a drain must evict it. */
    boolean evictable() {
        return !daemonSet && !mirror && !"Succeeded".equals(phase) && !"Failed".equals(phase);
    }

    /**
     * The pod as the informer's store hands it out: name, namespace, resourceVersion, deletionTimestamp,
     * {@code spec.nodeName}, {@code status.phase}, and its ReplicaSet or StatefulSet owner (with the
     * {@code pod-template-hash} label of a ReplicaSet's pod); nothing else of it is kept.
     */
    Pod toPod() {
        PodBuilder pod = new PodBuilder().withNewMetadata().withNamespace(namespace).withName(name).withResourceVersion(resourceVersion)
                .withDeletionTimestamp(deletionTimestamp).endMetadata()
                .withNewSpec().withNodeName(node).endSpec()
                .withNewStatus().withPhase(phase).endStatus();
        if (controllerKind != null) {
            pod.editMetadata().addNewOwnerReference().withKind(controllerKind).withName(controllerName).withController(true)
                    .endOwnerReference().endMetadata();
        }
        if (templateHash != null) {
            pod.editMetadata().addToLabels(TEMPLATE_HASH, templateHash).endMetadata();
        }
        return pod.build();
    }

    Optional<String> deletion() {
        return Optional.ofNullable(deletionTimestamp);
    }

    private static String shared(String text) {
        return text == null ? null : text.intern();
    }
}
