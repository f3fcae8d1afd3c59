package dev.nightshift.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.stream.StreamSupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.kube.PoolStatusRecords;
import dev.nightshift.agent.run.Agent;
import dev.nightshift.sandbox.capi.ClusterApiResources;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * A pool's end state after a rollout through {@code sandbox --no-agent}, read from the world (the API server's objects, the
 * machine API's listing), never from the agent: the crash tests' shared "done". Each check throws an
 * {@link AssertionError} naming what is not there yet, so that a wait can retry it and a stall can print it.
 */
final class RolledOutPool {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesClient client;
    private final SandboxProcess sandbox;

    RolledOutPool(KubernetesClient client, SandboxProcess sandbox) {
        this.client = client;
        this.sandbox = sandbox;
    }

    /**
     * Exactly {@code count} nodes in the pool, Ready, none cordoned or draining, each at the new roll hash; the
     * MachineDeployment at {@code count} replicas with {@code count} Machines, none being deleted, each carrying the new
     * roll hash and naming one of those nodes.
     */
    void assertClusterApi(CrashJudge.PoolLimits limits, String md, String newHash) {
        List<Node> pool = nodes(limits.pool());
        assertSettled(pool, limits);
        assertThat(pool).as("the pool's nodes at the new roll hash")
                .allSatisfy(n -> assertThat(annotation(n, NodeMarks.ROLL_HASH)).as(n.getMetadata().getName()).isEqualTo(newHash));
        GenericKubernetesResource deployment = client.genericKubernetesResources(ClusterApiResources.MACHINE_DEPLOYMENTS)
                .inNamespace("default").withName(md).get();
        assertThat(JSON.valueToTree(deployment).at("/spec/replicas").asInt()).as("%s's replicas", md).isEqualTo(limits.count());
        List<JsonNode> machines = client.genericKubernetesResources(ClusterApiResources.MACHINES).inNamespace("default")
                .withLabel("cluster.x-k8s.io/deployment-name", md).list().getItems().stream().map(m -> JSON.<JsonNode>valueToTree(m))
                .toList();
        assertThat(machines).as("%s's Machines", md).hasSize(limits.count()).allSatisfy(m -> {
            assertThat(m.at("/metadata/deletionTimestamp").isMissingNode()).as("%s being deleted", m.at("/metadata/name")).isTrue();
            assertThat(m.at("/metadata/annotations").path(NodeMarks.ROLL_HASH).asText()).as("%s's roll hash", m.at("/metadata/name"))
                    .isEqualTo(newHash);
        });
        assertThat(machines.stream().map(m -> m.at("/status/nodeRef/name").asText()).toList()).as("the Machines' nodes")
                .containsExactlyInAnyOrderElementsOf(pool.stream().map(n -> n.getMetadata().getName()).toList());
    }

    /**
     * Exactly {@code count} machines in the machine API's listing, all running with the new roll hash on their records;
     * the pool's nodes exactly theirs, Ready, none cordoned or draining, none carrying another roll hash (an adapter that
     * labels its nodes gets no hashes copied onto them: the record is the truth).
     */
    void assertMachineApi(CrashJudge.PoolLimits limits, String newHash) throws IOException, InterruptedException {
        var answer = sandbox.machineApi("GET", "/v1/pools/" + limits.pool() + "/machines", null);
        assertThat(answer.statusCode()).as("listing pool %s: %s", limits.pool(), answer.body()).isEqualTo(200);
        List<JsonNode> machines = StreamSupport.stream(JSON.readTree(answer.body()).path("machines").spliterator(), false).toList();
        assertThat(machines).as("the pool's machines in the machine API").hasSize(limits.count()).allSatisfy(m -> {
            assertThat(m.path("state").asText()).as("%s's state", m.path("id")).isEqualTo("running");
            assertThat(m.path("annotations").path(NodeMarks.ROLL_HASH).asText()).as("%s's roll hash", m.path("id")).isEqualTo(newHash);
        });
        List<Node> pool = nodes(limits.pool());
        assertSettled(pool, limits);
        assertThat(pool.stream().map(n -> n.getMetadata().getName()).toList()).as("the pool's nodes: the machines' nodes")
                .containsExactlyInAnyOrderElementsOf(machines.stream().map(m -> m.path("nodeName").asText()).toList());
        assertThat(pool).as("no node at another roll hash").allSatisfy(n -> assertThat(annotation(n, NodeMarks.ROLL_HASH))
                .as(n.getMetadata().getName()).isIn("", newHash));
    }

    private static void assertSettled(List<Node> pool, CrashJudge.PoolLimits limits) {
        assertThat(pool).as("the pool's nodes").hasSize(limits.count()).allSatisfy(n -> {
            assertThat(Boolean.TRUE.equals(n.getSpec().getUnschedulable())).as("%s cordoned", n.getMetadata().getName()).isFalse();
            assertThat(annotation(n, NodeMarks.DRAIN_STARTED_AT)).as("%s draining", n.getMetadata().getName()).isEmpty();
            assertThat(n.getStatus().getConditions()).as("%s Ready", n.getMetadata().getName())
                    .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
        });
    }

    /** The nodes labelled with the pool now. */
    List<Node> nodes(String pool) {
        return client.nodes().withLabel(NodeMarks.POOL, pool).list().getItems();
    }

    /** The commit the agent accepted for the pool, from its status record; null before it has one. */
    String acceptedCommit(String pool) {
        ConfigMap record = client.configMaps().inNamespace(Agent.NAMESPACE).withName(PoolStatusRecords.name(pool)).get();
        return record == null || record.getData() == null ? null : record.getData().get(PoolStatusRecords.ACCEPTED_COMMIT);
    }

    static String annotation(Node node, String key) {
        return Optional.ofNullable(node.getMetadata().getAnnotations()).map(a -> a.getOrDefault(key, "")).orElse("");
    }

    /** Whether every one of the pool's {@code count} nodes carries {@code hash} (the agent adopted and stamped them). */
    boolean allAt(String pool, int count, String hash) {
        List<Node> nodes = nodes(pool);
        return nodes.size() == count && nodes.stream().allMatch(n -> hash.equals(annotation(n, NodeMarks.ROLL_HASH)));
    }
}
