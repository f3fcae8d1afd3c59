package dev.nightshift.sandbox.demo;

import java.util.ArrayList;
import java.util.List;

import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;

/**
 * The pods of a large cluster, put straight into the embedded API's store ({@link EmbeddedKubernetes#createDirectly}):
 * on every node of a pool two DaemonSet pods in {@value #SYSTEM} (drains leave them) and the rest application pods of
 * a ReplicaSet in the pool's own namespace {@code team-<pool>}, labelled {@code app: <pool>}, under a
 * PodDisruptionBudget per pool ({@code maxUnavailable: 1}). Nothing restarts an evicted pod: with no ReplicaSet in the
 * store, each eviction lowers the budget's expected count, so budgets never block (as {@code DisruptionBudgets} says).
 * For the scale benchmark, where 100,000 pods through POSTs would take hours in the mock's store.
 */
public final class BulkWorkloads {

    /** Where the DaemonSet pods run. */
    public static final String SYSTEM = "kube-system";
    /** DaemonSet pods per node: the first pods of each node. */
    public static final int DAEMON_SETS = 2;

    private final EmbeddedKubernetes kube;

    public BulkWorkloads(EmbeddedKubernetes kube) {
        this.kube = kube;
    }

    /** The namespace of a pool's application pods and its budget. */
    public static String namespace(String pool) {
        return "team-" + pool;
    }

    /** {@code podsPerNode} pods on each of {@code nodes} of {@code pool} ({@value #DAEMON_SETS} of them DaemonSets'), and the pool's budget. */
    public void deploy(String pool, List<String> nodes, int podsPerNode) {
        List<HasMetadata> objects = new ArrayList<>(nodes.size() * podsPerNode + 1);
        for (String node : nodes) {
            for (int j = 0; j < podsPerNode; j++) {
                objects.add(pod(pool, node, j));
            }
        }
        objects.add(new PodDisruptionBudgetBuilder().withNewMetadata().withName(pool).withNamespace(namespace(pool)).endMetadata()
                .withNewSpec().withMaxUnavailable(new IntOrString(1)).withNewSelector().addToMatchLabels(DemoWorkloads.APP, pool)
                .endSelector().endSpec().build());
        kube.createDirectly(objects);
    }

    /** A pod as a cluster's controllers and kubelet leave it: owner, one container with resources, Running and Ready. */
    static Pod pod(String pool, String node, int j) {
        boolean daemonSet = j < DAEMON_SETS;
        String owner = daemonSet ? "node-agent-" + j : pool + "-7d9f8c6b5";
        PodBuilder pod = new PodBuilder().withNewMetadata().withName(node + "-" + j).withNamespace(daemonSet ? SYSTEM : namespace(pool))
                .addToLabels(DemoWorkloads.APP, daemonSet ? owner : pool).addToLabels("pod-template-hash", "7d9f8c6b5")
                .addNewOwnerReference().withApiVersion("apps/v1").withKind(daemonSet ? "DaemonSet" : "ReplicaSet").withName(owner)
                .withUid(owner).withController(true).withBlockOwnerDeletion(true).endOwnerReference().endMetadata()
                .withNewSpec().withNodeName(node).withServiceAccountName("default").withRestartPolicy("Always")
                .addNewContainer().withName("app").withImage("registry.example.com/" + owner + ":1.0")
                .addNewPort().withContainerPort(8080).withProtocol("TCP").endPort()
                .addNewEnv().withName("POOL").withValue(pool).endEnv()
                .withNewResources().addToRequests("cpu", new Quantity("100m")).addToRequests("memory", new Quantity("128Mi"))
                .endResources().endContainer().endSpec()
                .withNewStatus().withPhase("Running").withHostIP("10.0.0.1").withPodIP("10.1.0." + (j + 2))
                .addNewCondition().withType("Ready").withStatus("True").endCondition()
                .addNewCondition().withType("ContainersReady").withStatus("True").endCondition()
                .endStatus();
        return pod.build();
    }
}
