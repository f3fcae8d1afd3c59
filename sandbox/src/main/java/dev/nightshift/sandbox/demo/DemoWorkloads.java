package dev.nightshift.sandbox.demo;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.nightshift.agent.kube.NodeMarks;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

/**
 * Something for drains to move: application pods with a PodDisruptionBudget, a DaemonSet pod on
 * every node (drains leave those alone), and a stand-in scheduler that starts an evicted pod again
 * on another schedulable Ready node of its pool, so budgets keep meaning something. The demo's
 * and the sandbox's.
 */
public final class DemoWorkloads implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DemoWorkloads.class);
    /** The namespace of the application pods and their budgets. */
    public static final String NAMESPACE = "shop";
    static final String APP = "app";

    /** The {@code pod-template-hash} of the Deployments' pods: one template each, never changed. */
    static final String TEMPLATE_HASH = "5d8f7c9b6";

    private final KubernetesClient client;
    private final AtomicInteger counter = new AtomicInteger();
    /** The Deployments whose status this stand-in keeps, by app, with the roll hash of nodes on which their pods never become available. */
    private final java.util.Map<String, java.util.Optional<String>> deployments = new java.util.concurrent.ConcurrentHashMap<>();
    private java.util.concurrent.ScheduledExecutorService statusLoop;
    private SharedIndexInformer<Pod> informer;
    private volatile boolean closed;

    public DemoWorkloads(KubernetesClient client) {
        this.client = client;
    }

    /** {@code podsPerNode} pods of {@code app} on each of the pool's nodes, a budget of one disruption at a time. */
    public void deploy(String pool, String app, List<String> nodes, int podsPerNode) {
        for (String node : nodes) {
            for (int i = 0; i < podsPerNode; i++) {
                create(pool, app, node);
            }
        }
        client.policy().v1().podDisruptionBudget().inNamespace(NAMESPACE).resource(new PodDisruptionBudgetBuilder()
                .withNewMetadata().withName(app).withNamespace(NAMESPACE).endMetadata()
                .withNewSpec().withMaxUnavailable(new IntOrString(1)).withNewSelector().addToMatchLabels(APP, app).endSelector()
                .endSpec().build()).create();
    }

    /**
     * {@link #deploy}, the pods owned by a Deployment {@code app} (through its ReplicaSet, as the Deployment
     * controller names it), whose {@code status.availableReplicas} this stand-in keeps: its pods, less those on a node
     * whose image breaks it ({@link #breakOn}). The {@code workloadsAvailable} health check reads exactly that.
     */
    public void deployment(String pool, String app, List<String> nodes, int podsPerNode) {
        client.apps().deployments().inNamespace(NAMESPACE).resource(new io.fabric8.kubernetes.api.model.apps.DeploymentBuilder()
                .withNewMetadata().withName(app).withNamespace(NAMESPACE).endMetadata()
                .withNewSpec().withReplicas(nodes.size() * podsPerNode).withNewSelector().addToMatchLabels(APP, app).endSelector()
                .endSpec().withNewStatus().withReplicas(nodes.size() * podsPerNode)
                .withAvailableReplicas(nodes.size() * podsPerNode).endStatus().build()).create();
        deployments.put(app, java.util.Optional.empty());
        deploy(pool, app, nodes, podsPerNode);
        synchronized (this) {
            if (statusLoop == null) {
                statusLoop = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "demo-deployment-status");
                    t.setDaemon(true);
                    return t;
                });
                statusLoop.scheduleWithFixedDelay(this::updateStatuses, 500, 500, java.util.concurrent.TimeUnit.MILLISECONDS);
            }
        }
    }

    /**
     * From now on, pods of Deployment {@code app} on a node stamped with {@code rollHash} start but never become
     * available: the demo's bad image, which boots and breaks the workload, so that a real health check fails.
     */
    void breakOn(String app, String rollHash) {
        deployments.put(app, java.util.Optional.of(rollHash));
    }

    /** Each Deployment's available replicas as a kubelet and the Deployment controller would report them; written when they change. */
    private synchronized void updateStatuses() {
        if (closed) {
            return;
        }
        try {
            java.util.Map<String, String> hashes = new java.util.HashMap<>();
            client.nodes().list().getItems().forEach(n -> hashes.put(n.getMetadata().getName(),
                    n.getMetadata().getAnnotations() == null ? "" : n.getMetadata().getAnnotations().getOrDefault(NodeMarks.ROLL_HASH, "")));
            for (java.util.Map.Entry<String, java.util.Optional<String>> d : deployments.entrySet()) {
                int available = (int) client.pods().inNamespace(NAMESPACE).withLabel(APP, d.getKey()).list().getItems().stream()
                        .filter(p -> p.getMetadata().getDeletionTimestamp() == null && hashes.containsKey(p.getSpec().getNodeName()))
                        .filter(p -> d.getValue().filter(bad -> bad.equals(hashes.get(p.getSpec().getNodeName()))).isEmpty())
                        .count();
                var deployment = client.apps().deployments().inNamespace(NAMESPACE).withName(d.getKey()).get();
                if (deployment == null || deployment.getStatus() != null
                        && Integer.valueOf(available).equals(deployment.getStatus().getAvailableReplicas())) {
                    continue;
                }
                int wanted = deployment.getSpec().getReplicas();
                deployment.setStatus(new io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder().withReplicas(wanted)
                        .withAvailableReplicas(available).withReadyReplicas(available).withUnavailableReplicas(Math.max(0, wanted - available))
                        .build());
                client.apps().deployments().inNamespace(NAMESPACE).resource(deployment).updateStatus();
            }
        } catch (RuntimeException e) {
            LOG.debug("could not update the Deployments' status: {}", e.getMessage());
        }
    }

    /** A pod of a DaemonSet on every node: drains skip it. */
    void daemonSet(List<String> nodes) {
        for (String node : nodes) {
            client.pods().inNamespace("kube-system").resource(new PodBuilder()
                    .withNewMetadata().withName("node-exporter-" + node).withNamespace("kube-system")
                    .addNewOwnerReference().withApiVersion("apps/v1").withKind("DaemonSet").withName("node-exporter")
                    .withUid("node-exporter").withController(true).endOwnerReference().endMetadata()
                    .withNewSpec().withNodeName(node).addNewContainer().withName("exporter").withImage("node-exporter").endContainer()
                    .endSpec().withNewStatus().withPhase("Running").endStatus().build()).create();
        }
    }

    /** A budget that refuses every eviction of {@code app}: the story's blocked drain. */
    void strictBudget(String app) {
        client.policy().v1().podDisruptionBudget().inNamespace(NAMESPACE).withName(app).edit(pdb -> {
            pdb.getSpec().setMaxUnavailable(new IntOrString(0));
            return pdb;
        });
    }

    void relaxedBudget(String app) {
        client.policy().v1().podDisruptionBudget().inNamespace(NAMESPACE).withName(app).edit(pdb -> {
            pdb.getSpec().setMaxUnavailable(new IntOrString(1));
            return pdb;
        });
    }

    /** Starts the stand-in scheduler. */
    public void startRescheduling() {
        informer = client.pods().inNamespace(NAMESPACE).inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
            }

            @Override
            public void onUpdate(Pod oldPod, Pod newPod) {
            }

            @Override
            public void onDelete(Pod pod, boolean unknown) {
                if (!closed) {
                    // The status first: a Deployment whose pod was just evicted is short at once, as the agent's check
                    // may read it before the replacement runs; a status left at full would stop the check following it.
                    if (deployments.containsKey(pod.getMetadata().getLabels().get(APP))) {
                        updateStatuses();
                    }
                    reschedule(pod);
                    if (deployments.containsKey(pod.getMetadata().getLabels().get(APP))) {
                        updateStatuses();
                    }
                }
            }
        });
    }

    private void reschedule(Pod gone) {
        // Chosen from fresh reads, and the choice read again just before the pod is bound: counting pods per node takes
        // a while under load, and a node cordoned meanwhile must not get the pod. A real scheduler decides from a cache
        // milliseconds old; this stand-in once bound pods to nodes cordoned seconds before, which no drain can keep up with.
        for (int attempt = 0; attempt < 3; attempt++) {
            Optional<String> target = choose(gone);
            if (target.isEmpty()) {
                return;
            }
            Node now = client.nodes().withName(target.get()).get();
            if (now == null || Boolean.TRUE.equals(now.getSpec().getUnschedulable())) {
                continue;
            }
            try {
                create(gone.getMetadata().getLabels().get(NodeMarks.POOL), gone.getMetadata().getLabels().get(APP), target.get());
            } catch (RuntimeException e) {
                LOG.debug("could not start a replacement pod: {}", e.getMessage());
            }
            return;
        }
    }

    private Optional<String> choose(Pod gone) {
        String pool = gone.getMetadata().getLabels().get(NodeMarks.POOL);
        String app = gone.getMetadata().getLabels().get(APP);
        Optional<Node> target = client.nodes().withLabel(NodeMarks.POOL, pool).list().getItems().stream()
                .filter(n -> !Boolean.TRUE.equals(n.getSpec().getUnschedulable()))
                .filter(n -> !n.getMetadata().getName().equals(gone.getSpec().getNodeName()))
                .filter(n -> n.getStatus() != null && n.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus())))
                .min(Comparator.comparing(n -> client.pods().inNamespace(NAMESPACE).withLabel(APP, app).list().getItems().stream()
                        .filter(p -> n.getMetadata().getName().equals(p.getSpec().getNodeName())).count()));
        return target.map(n -> n.getMetadata().getName());
    }

    private void create(String pool, String app, String node) {
        PodBuilder pod = new PodBuilder();
        if (deployments.containsKey(app)) {
            // Owned as the Deployment controller owns them: the agent follows the Deployment of a pod it evicts.
            pod.withNewMetadata().addToLabels("pod-template-hash", TEMPLATE_HASH).addNewOwnerReference().withApiVersion("apps/v1")
                    .withKind("ReplicaSet").withName(app + "-" + TEMPLATE_HASH).withUid(app + "-" + TEMPLATE_HASH).withController(true)
                    .endOwnerReference().endMetadata();
        }
        client.pods().inNamespace(NAMESPACE).resource(pod
                .editOrNewMetadata().withName(app + "-" + counter.incrementAndGet()).withNamespace(NAMESPACE)
                .addToLabels(APP, app).addToLabels(NodeMarks.POOL, pool).endMetadata()
                .withNewSpec().withNodeName(node).addNewContainer().withName(app).withImage(app + ":1").endContainer().endSpec()
                .withNewStatus().withPhase("Running").endStatus().build()).create();
    }

    @Override
    public void close() {
        closed = true;
        synchronized (this) {
            if (statusLoop != null) {
                statusLoop.shutdownNow();
            }
        }
        if (informer != null) {
            informer.close();
        }
    }
}
