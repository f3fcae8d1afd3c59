package dev.nightshift.agent.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.sandbox.capi.ClusterApiControllers;
import dev.nightshift.sandbox.capi.ClusterApiResources;
import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import dev.nightshift.sandbox.machineapi.MachineLog;
import dev.nightshift.spec.hash.StampedHash;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;

/**
 * The rollout guarantees, judged from what the embedded API server saw: its request log replayed from a snapshot
 * taken when the log was cleared (nodes with {@link ClusterTimeline}; pods, Machines and MachineDeployments with
 * {@link ObjectReplay}), checked after every request. The pool's nodes are those labelled with the pool and, with
 * Cluster API, those whose {@code cluster.x-k8s.io/machine} is a Machine of the pool's MachineDeployment (they
 * register unlabelled; the agent labels them a moment later).
 *
 * <ul>
 *   <li><b>Never more than count + maxSurge machines</b>: with Cluster API, the MachineDeployment's Machine objects,
 *       counted until they are gone (a Machine being deleted still counts); with the simulated cloud, the pool's
 *       nodes plus the surge machines the agent asked for that have not registered yet. (The replacement the simulated
 *       cloud starts for a node deleted without surge, and a refill, are not seen before they register: they only
 *       lower the count.)</li>
 *   <li><b>Never fewer than count − maxUnavailable available nodes</b>: Ready, not cordoned and, with Cluster API,
 *       their Machine not being deleted. An old node's planned unavailability starts with its cordon.</li>
 *   <li><b>No node drained twice</b>: each node cordoned at most once, its drain mark set at most once, and every
 *       eviction (or outright pod deletion) of a pod happens while the pod's node is cordoned — so all of a node's
 *       evictions belong to its one drain. With Cluster API, the controller double drains nothing (Nightshift
 *       drains and annotates {@code exclude-node-draining}).</li>
 *   <li><b>No machine deleted that was not drained first</b>: at the node's DELETE (simulated), at the Machine's
 *       DELETE, and at every lowering of the MachineDeployment's replicas for the Machines marked
 *       {@code delete-machine} (Cluster API), the node is cordoned (or still carries the start-up taint
 *       {@code nightshift.dev/uninitialized:NoSchedule}, so never took a pod) and no evictable pod is left on it.</li>
 * </ul>
 * The end state is checked apart ({@link #assertFinal}).
 */
final class RolloutInvariants {

    static final String CAPI_API = "/apis/" + ClusterApiResources.CORE_GROUP + "/" + ClusterApiResources.VERSION;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MACHINE_ANNOTATION = "cluster.x-k8s.io/machine";
    private static final String DEPLOYMENT_LABEL = "cluster.x-k8s.io/deployment-name";
    private static final String SET_LABEL = "cluster.x-k8s.io/set-name";
    private static final String DELETE_MACHINE = "cluster.x-k8s.io/delete-machine";
    private static final String TEMPLATE_OF = "nightshift.dev/template-of";

    /** The pool's size and limits, as its spec says. */
    record Limits(int count, int maxSurge, int maxUnavailable) {
    }

    /** What the cluster held when the request log was cleared; the replay starts from it. */
    record Start(Instant at, List<Node> nodes, List<Pod> pods, List<GenericKubernetesResource> machines,
                 List<GenericKubernetesResource> deployments, String oldRollHash) {
    }

    private RolloutInvariants() {
    }

    /**
     * Clears the request log, then reads the cluster: a write between the two is both in the snapshot and in the log,
     * and replaying it again changes nothing, where the other order would lose it.
     */
    static Start clearAndSnapshot(AgentHarness h, String pool) {
        Instant at = Instant.now();
        h.kube.clearRequests();
        var client = h.kube.client();
        List<Node> nodes = client.nodes().list().getItems();
        List<GenericKubernetesResource> machines = h.backend == RolloutBackend.CLUSTER_API ? client.genericKubernetesResources(
                ClusterApiResources.MACHINES).inNamespace(EmbeddedKubernetes.NAMESPACE).list().getItems() : List.of();
        List<GenericKubernetesResource> deployments = h.backend == RolloutBackend.CLUSTER_API ? client.genericKubernetesResources(
                ClusterApiResources.MACHINE_DEPLOYMENTS).inNamespace(EmbeddedKubernetes.NAMESPACE).list().getItems() : List.of();
        String oldHash = h.nodes(pool).stream().map(n -> AgentHarness.annotation(n, NodeMarks.ROLL_HASH)).findFirst().orElseThrow();
        return new Start(at, nodes, client.pods().inAnyNamespace().list().getItems(), machines, deployments, oldHash);
    }

    /** Replays the log from {@code start} and asserts the four guarantees at every request. */
    static void assertHeld(AgentHarness h, String pool, Limits limits, Start start) {
        assertHeld(h, pool, limits, start, Set.of());
    }

    /**
     * As {@link #assertHeld(AgentHarness, String, Limits, Start)} with machines the test took away behind the agent's
     * back ({@code lost}, by node name): their deletions are the fault's, not the agent's, and the availability floor is
     * lowered by as many as were lost (what the faults themselves took).
     */
    static void assertHeld(AgentHarness h, String pool, Limits limits, Start start, Set<String> lost) {
        List<RecordedRequest> log = h.kube.requests();
        ClusterTimeline timeline = ClusterTimeline.replay(start.nodes(), log);
        ObjectReplay pods = new ObjectReplay("/api/v1", "pods", start.pods());
        ObjectReplay machines = new ObjectReplay(CAPI_API, "machines", start.machines());
        ObjectReplay deployments = new ObjectReplay(CAPI_API, "machinedeployments", start.deployments());
        boolean capi = h.backend == RolloutBackend.CLUSTER_API;
        String md = start.deployments().stream().filter(d -> pool.equals(d.getMetadata().getLabels().get(NodeMarks.POOL)))
                .map(d -> d.getMetadata().getName()).findFirst().orElse("");
        Set<String> machinesOfPool = new HashSet<>();
        // Surge machines asked for: a refill (standing in for no one) is not seen before it registers, as the cloud's
        // own replacements are not; both only lower the count until then.
        List<MachineRequests.Request> asked = h.machineRequests.requests().stream()
                .filter(q -> q.pool().equals(pool) && !q.time().isBefore(start.at()) && q.surgeFor().isPresent()).toList();

        List<java.time.Instant> withdrawn = h.machineRequests.withdrawnSurge().stream().filter(t -> !t.isBefore(start.at())).toList();
        List<String> violations = new ArrayList<>();
        Map<String, JsonNode> nodesBefore = start.nodes().stream()
                .collect(Collectors.toMap(n -> n.getMetadata().getName(), n -> (JsonNode) JSON.valueToTree(n)));
        int surgeRegistered = 0;
        Map<String, Integer> drainMarks = new HashMap<>();
        for (int i = 0; i < log.size(); i++) {
            RecordedRequest r = log.get(i);
            Map<String, JsonNode> before = nodesBefore;
            Map<String, JsonNode> nodesAfter = timeline.moments().get(i).nodes();
            machines.objects().values().forEach(m -> collectMachineOf(md, m, machinesOfPool));

            // Drains: evictions and pod deletions only on cordoned nodes; the double drains nothing.
            Optional<String[]> pod = pods.target(r);
            if (pod.isPresent() && !pod.get()[1].isEmpty() && (pod.get()[2].equals("eviction") && r.method().equals("POST")
                    || pod.get()[2].isEmpty() && r.method().equals("DELETE"))) {
                Optional<JsonNode> p = pods.get(pod.get()[0], pod.get()[1]);
                String node = p.map(x -> x.at("/spec/nodeName").asText()).orElse("");
                if (p.isPresent() && before.containsKey(node) && !unschedulable(before.get(node))) {
                    violations.add("pod " + pod.get()[0] + "/" + pod.get()[1] + " evicted or deleted while its node " + node
                            + " was not cordoned: " + r);
                }
                // A Machine a MachineHealthCheck deleted (a lost one) is drained by Cluster API, as it should be.
                if (capi && r.userAgent().equals(ClusterApiControllers.USER_AGENT) && !lost.contains(node)) {
                    violations.add("Cluster API drained a node itself (Nightshift excludes its machines from draining): " + r);
                }
            }
            if (capi && r.userAgent().equals(ClusterApiControllers.USER_AGENT) && SeenRequests.isCordon(r)
                    && !lost.contains(r.resourcePath().substring(r.resourcePath().lastIndexOf('/') + 1))) {
                violations.add("Cluster API cordoned a node itself (Nightshift excludes its machines from draining): " + r);
            }

            // Deletions: only of drained machines; with the machine API, when the agent asked for it (delete or replace).
            if (h.backend == RolloutBackend.HTTP) {
                java.time.Instant since = i == 0 ? java.time.Instant.MIN : log.get(i - 1).time();
                for (MachineLog.Entry e : h.machineLog.entries()) {
                    if (e.event() == MachineLog.Event.DELETING && pool.equals(e.pool()) && e.nodeName() != null
                            && !lost.contains(e.nodeName()) && e.time().isAfter(since) && !e.time().isAfter(r.time()) && !e.time().isBefore(start.at())) {
                        undrained(e.nodeName(), before, pods).ifPresent(why -> violations.add("machine " + e.machine() + " deleted, its node "
                                + e.nodeName() + " " + why + " (machine API, " + e.time() + ")"));
                    }
                }
            }
            if (!capi && r.method().equals("DELETE") && r.succeeded() && r.resourcePath().startsWith("/api/v1/nodes/")) {
                String node = r.resourcePath().substring("/api/v1/nodes/".length());
                (lost.contains(node) ? Optional.<String>empty() : undrained(node, before, pods)).ifPresent(why -> violations.add("node " + node + " deleted " + why + ": " + r));
            }
            Optional<String[]> machine = machines.target(r);
            if (capi && machine.isPresent() && r.method().equals("DELETE") && r.succeeded() && machine.get()[2].isEmpty()) {
                Optional<JsonNode> m = machines.get(machine.get()[0], machine.get()[1]);
                if (m.isPresent() && !m.get().at("/metadata/deletionTimestamp").isTextual()) {
                    String node = m.get().at("/status/nodeRef/name").asText();
                    (lost.contains(node) ? Optional.<String>empty() : undrained(node, before, pods)).ifPresent(why -> violations.add("Machine " + machine.get()[1] + " deleted, its node "
                            + node + " " + why + ": " + r));
                }
            }
            Optional<String[]> deployment = deployments.target(r);
            int replicasBefore = deployments.get(EmbeddedKubernetes.NAMESPACE, md).map(d -> d.at("/spec/replicas").asInt()).orElse(0);
            deployments.apply(r);
            int replicasAfter = deployments.get(EmbeddedKubernetes.NAMESPACE, md).map(d -> d.at("/spec/replicas").asInt()).orElse(0);
            if (capi && deployment.isPresent() && replicasAfter < replicasBefore) {
                for (JsonNode m : machines.objects().values()) {
                    if (md.equals(m.at("/metadata/labels").path(DEPLOYMENT_LABEL).asText()) && m.at("/metadata/annotations").has(DELETE_MACHINE)
                            && !m.at("/metadata/deletionTimestamp").isTextual()) {
                        String node = m.at("/status/nodeRef/name").asText();
                        undrained(node, before, pods).ifPresent(why -> violations.add("replicas lowered to " + replicasAfter
                                + " for Machine " + m.at("/metadata/name").asText() + ", whose node " + node + " " + why + ": " + r));
                    }
                }
            }
            pods.apply(r);
            machines.apply(r);
            machines.objects().values().forEach(m -> collectMachineOf(md, m, machinesOfPool));

            // Drain marks: set once per node.
            for (String node : nodesAfter.keySet()) {
                boolean marked = nodesAfter.get(node).at("/metadata/annotations").has(NodeMarks.DRAIN_STARTED_AT);
                boolean was = before.containsKey(node) && before.get(node).at("/metadata/annotations").has(NodeMarks.DRAIN_STARTED_AT);
                if (marked && !was) {
                    drainMarks.merge(node, 1, Integer::sum);
                }
            }

            // Capacity and availability, right after the request.
            List<String> poolNodes = poolNodes(pool, nodesAfter, machinesOfPool);
            int count;
            if (capi) {
                count = (int) machines.objects().values().stream()
                        .filter(m -> md.equals(m.at("/metadata/labels").path(DEPLOYMENT_LABEL).asText())).count();
            } else if (h.backend == RolloutBackend.HTTP) {
                // The machine API's own record: machines of the pool asked for or running, not being deleted, at this moment.
                count = machinesAt(h.machineLog.entries(), pool, r.time());
            } else {
                if (r.method().equals("POST") && r.resourcePath().equals("/api/v1/nodes") && r.succeeded()
                        && r.body().contains(NodeMarks.SURGE_FOR)) {
                    surgeRegistered++;
                }
                long askedByNow = asked.stream().filter(q -> !q.time().isAfter(r.time())).count();
                // A surge machine deleted before it registered (outdated by a second commit) no longer counts.
                long withdrawnByNow = withdrawn.stream().filter(t -> !t.isAfter(r.time())).count();
                count = poolNodes.size() + (int) Math.max(0, askedByNow - surgeRegistered - withdrawnByNow);
            }
            if (count > limits.count() + limits.maxSurge()) {
                violations.add(count + " machines, more than count + maxSurge = " + (limits.count() + limits.maxSurge()) + ", after "
                        + r + "; nodes " + describe(poolNodes, nodesAfter));
            }
            long available = poolNodes.stream().filter(n -> available(nodesAfter.get(n), machines)).count();
            if (available < limits.count() - limits.maxUnavailable() - lost.size()) {
                violations.add(available + " available nodes, fewer than count − maxUnavailable = "
                        + (limits.count() - limits.maxUnavailable()) + (lost.isEmpty() ? "" : " − " + lost.size() + " lost")
                        + ", after " + r + "; nodes " + describe(poolNodes, nodesAfter));
            }
            nodesBefore = nodesAfter;
        }
        Map<String, Integer> cordons = log.isEmpty() ? Map.of() : timeline.cordons();
        cordons.forEach((node, times) -> {
            if (times > 1) {
                violations.add("node " + node + " cordoned " + times + " times: drained twice");
            }
        });
        drainMarks.forEach((node, times) -> {
            if (times > 1) {
                violations.add("node " + node + "'s drain started " + times + " times");
            }
        });
        assertThat(violations).as("rollout guarantees, from the request log (%s, %s); the writes:%s", h.backend, limits,
                writes(log)).isEmpty();
        // Unless the faults took every node there was (a pool of one whose machine was lost: its stand-in is the pool).
        Set<String> poolBefore = start.nodes().stream().filter(n -> pool.equals(labelOf(n, NodeMarks.POOL)))
                .map(n -> n.getMetadata().getName()).collect(Collectors.toSet());
        if (!lost.containsAll(poolBefore)) {
            assertThat(cordons).as("some node was drained at all").isNotEmpty();
        }
    }

    private static String labelOf(io.fabric8.kubernetes.api.model.Node n, String key) {
        return n.getMetadata().getLabels() == null ? null : n.getMetadata().getLabels().get(key);
    }

    /**
     * The pool's machines at {@code time} from the machine API's log: seeded or created, and not yet being deleted. A
     * replace is one operation: its replacement's {@code CREATED} line (written first, a moment before the old
     * machine's {@code REPLACED}) already takes the old machine out.
     */
    private static int machinesAt(List<MachineLog.Entry> entries, String pool, Instant time) {
        Set<String> alive = new HashSet<>();
        for (MachineLog.Entry e : entries) {
            if (e.time().isAfter(time) || !pool.equals(e.pool())) {
                continue;
            }
            switch (e.event()) {
                case SEEDED -> alive.add(e.machine());
                case CREATED -> {
                    alive.add(e.machine());
                    if (e.replaces() != null) {
                        alive.remove(e.replaces());
                    }
                }
                case DELETING, REPLACED, GONE -> alive.remove(e.machine());
                default -> { }
            }
        }
        return alive.size();
    }

    private static void collectMachineOf(String md, JsonNode machine, Set<String> into) {
        if (!md.isEmpty() && md.equals(machine.at("/metadata/labels").path(DEPLOYMENT_LABEL).asText())) {
            into.add(machine.at("/metadata/name").asText());
        }
    }

    /** Why {@code node} was not drained (not cordoned, or which pods were left), or empty when it was or is gone. */
    private static Optional<String> undrained(String node, Map<String, JsonNode> nodes, ObjectReplay pods) {
        if (node.isEmpty() || !nodes.containsKey(node)) {
            return Optional.empty();
        }
        // A node still carrying the start-up taint never took a pod (NoSchedule since it registered): a machine with no
        // node yet may be deleted in the instant its node registers, and only that taint makes it harmless.
        if (!unschedulable(nodes.get(node)) && !startupTainted(nodes.get(node))) {
            return Optional.of("was not cordoned");
        }
        List<String> left = pods.objects().values().stream().filter(p -> node.equals(p.at("/spec/nodeName").asText()))
                .filter(RolloutInvariants::evictable).map(p -> p.at("/metadata/namespace").asText() + "/" + p.at("/metadata/name").asText())
                .sorted().toList();
        return left.isEmpty() ? Optional.empty() : Optional.of("still ran " + left);
    }

    private static boolean evictable(JsonNode pod) {
        boolean daemon = StreamSupport.stream(pod.at("/metadata/ownerReferences").spliterator(), false)
                .anyMatch(o -> o.path("kind").asText().equals("DaemonSet"));
        return !daemon && !pod.at("/metadata/annotations").has("kubernetes.io/config.mirror");
    }

    private static List<String> poolNodes(String pool, Map<String, JsonNode> nodes, Set<String> machinesOfPool) {
        return nodes.values().stream().filter(n -> pool.equals(n.at("/metadata/labels").path(NodeMarks.POOL).asText())
                        || machinesOfPool.contains(n.at("/metadata/annotations").path(MACHINE_ANNOTATION).asText()))
                .map(n -> n.at("/metadata/name").asText()).sorted().toList();
    }

    private static boolean startupTainted(JsonNode node) {
        return StreamSupport.stream(node.at("/spec/taints").spliterator(), false)
                .anyMatch(t -> NodeMarks.STARTUP_TAINT.equals(t.path("key").asText()) && "NoSchedule".equals(t.path("effect").asText()));
    }

    private static boolean unschedulable(JsonNode node) {
        return node.at("/spec/unschedulable").asBoolean(false);
    }

    private static boolean ready(JsonNode node) {
        return StreamSupport.stream(node.at("/status/conditions").spliterator(), false)
                .anyMatch(c -> c.path("type").asText().equals("Ready") && c.path("status").asText().equals("True"));
    }

    private static boolean available(JsonNode node, ObjectReplay machines) {
        String machine = node.at("/metadata/annotations").path(MACHINE_ANNOTATION).asText();
        boolean deleting = !machine.isEmpty() && machines.get(EmbeddedKubernetes.NAMESPACE, machine)
                .map(m -> m.at("/metadata/deletionTimestamp").isTextual()).orElse(false);
        return ready(node) && !unschedulable(node) && !deleting;
    }

    private static String describe(List<String> poolNodes, Map<String, JsonNode> nodes) {
        return poolNodes.stream().map(n -> n + (unschedulable(nodes.get(n)) ? "(cordoned)" : ready(nodes.get(n)) ? "" : "(not ready)"))
                .toList().toString();
    }

    /** The writes that matter to a rollout, for failure messages. */
    static String writes(List<RecordedRequest> log) {
        return log.stream().filter(r -> r.isWrite() && (r.resourcePath().startsWith("/api/v1/nodes")
                        || r.resourcePath().contains("/machines") || r.resourcePath().contains("/machinedeployments/")
                        || r.resourcePath().endsWith("/eviction") || (r.method().equals("DELETE") && r.resourcePath().contains("/pods/")))
                        && !r.resourcePath().endsWith("/status"))
                .map(r -> "\n  " + r.time() + " " + r.userAgent() + " " + r.method() + " " + r.resourcePath() + " -> " + r.status()
                        + (r.method().equals("PATCH") ? " " + abbreviate(r.body()) : ""))
                .collect(Collectors.joining());
    }

    private static String abbreviate(String body) {
        return body.length() > 300 ? body.substring(0, 300) + "…" : body;
    }

    // ---- the end state ------------------------------------------------------------------------------------------------

    /**
     * The rollout is over: the pool has {@code count} nodes, all Ready, schedulable (the start-up taint off) and at one roll hash other than
     * {@code start}'s; with Cluster API, {@code count} Machines none being deleted, each in a MachineSet whose template
     * is the clone Nightshift made for that hash (as is the MachineDeployment's). Returns that roll hash; throws
     * (for Awaitility) while it is not so.
     */
    static String assertRolledOut(AgentHarness h, String pool, Limits limits, Start start) {
        List<Node> nodes = h.nodes(pool);
        assertThat(nodes).as("the pool's nodes").hasSize(limits.count());
        Set<String> hashes = nodes.stream().map(n -> AgentHarness.annotation(n, NodeMarks.ROLL_HASH)).collect(Collectors.toSet());
        assertThat(hashes).as("the pool's nodes' roll hashes").hasSize(1).doesNotContain(start.oldRollHash(), "");
        assertThat(nodes).allSatisfy(n -> {
            assertThat(NodeMarks.spec(n).getUnschedulable()).as("%s cordoned", n.getMetadata().getName()).isNotEqualTo(Boolean.TRUE);
            assertThat(AgentHarness.annotation(n, NodeMarks.DRAIN_STARTED_AT)).isEmpty();
            assertThat(NodeMarks.startupTainted(n)).as("%s still carries the start-up taint", n.getMetadata().getName()).isFalse();
        });
        if (h.backend == RolloutBackend.CLUSTER_API) {
            String md = machineDeployment(start, pool);
            StampedHash hash = NodeMarks.rollHash(NodeMarks.annotations(nodes.get(0))).orElseThrow();
            String template = md + "-" + hex10(hash);
            var client = h.kube.client();
            JsonNode deployment = JSON.valueToTree(client.genericKubernetesResources(ClusterApiResources.MACHINE_DEPLOYMENTS)
                    .inNamespace(EmbeddedKubernetes.NAMESPACE).withName(md).get());
            assertThat(deployment.at("/spec/template/spec/infrastructureRef/name").asText())
                    .as("the MachineDeployment's template: the clone for roll hash %s", hash).isEqualTo(template);
            assertThat(deployment.at("/spec/replicas").asInt()).as("the MachineDeployment's replicas").isEqualTo(limits.count());
            Map<String, String> templateOfSet = new HashMap<>();
            client.genericKubernetesResources(ClusterApiResources.MACHINE_SETS).inNamespace(EmbeddedKubernetes.NAMESPACE).list()
                    .getItems().forEach(ms -> templateOfSet.put(ms.getMetadata().getName(),
                            JSON.valueToTree(ms).at("/spec/template/spec/infrastructureRef/name").asText()));
            List<JsonNode> machines = client.genericKubernetesResources(ClusterApiResources.MACHINES)
                    .inNamespace(EmbeddedKubernetes.NAMESPACE).withLabel(DEPLOYMENT_LABEL, md).list().getItems().stream()
                    .map(m -> (JsonNode) JSON.valueToTree(m)).toList();
            assertThat(machines).as("the MachineDeployment's Machines").hasSize(limits.count()).allSatisfy(m -> {
                assertThat(m.at("/metadata/deletionTimestamp").isMissingNode()).as("%s being deleted", m.at("/metadata/name")).isTrue();
                assertThat(templateOfSet.get(m.at("/metadata/labels").path(SET_LABEL).asText()))
                        .as("the template of %s's MachineSet", m.at("/metadata/name").asText()).isEqualTo(template);
            });
            assertThat(nodes).extracting(n -> AgentHarness.annotation(n, MACHINE_ANNOTATION)).as("the nodes' Machines")
                    .containsExactlyInAnyOrderElementsOf(machines.stream().map(m -> m.at("/metadata/name").asText()).toList());
        }
        if (h.backend == RolloutBackend.HTTP) {
            String hash = hashes.iterator().next();
            List<dev.nightshift.agent.provider.http.ApiMachine> machines = h.machineApi.cloud().list(pool);
            assertThat(machines).as("the pool's machines in the machine API").hasSize(limits.count()).allSatisfy(m -> {
                assertThat(m.state()).as("%s's state", m.id()).isEqualTo(dev.nightshift.agent.provider.http.MachineState.RUNNING);
                assertThat(m.annotations().get(NodeMarks.ROLL_HASH)).as("%s's roll hash on its record", m.id()).isEqualTo(hash);
            });
            assertThat(nodes).extracting(n -> n.getMetadata().getName()).as("the nodes of the machine API's machines")
                    .containsExactlyInAnyOrderElementsOf(machines.stream().map(dev.nightshift.agent.provider.http.ApiMachine::nodeName).toList());
        }
        return hashes.iterator().next();
    }

    /**
     * No template Nightshift cloned ({@value #TEMPLATE_OF}) is left unused: each is named by the MachineDeployment or by
     * a MachineSet that has replicas or Machines. Throws (for Awaitility) while one is.
     */
    static void assertNoUnusedTemplate(AgentHarness h, String pool, Start start) {
        var client = h.kube.client();
        String md = machineDeployment(start, pool);
        JsonNode deployment = JSON.valueToTree(client.genericKubernetesResources(ClusterApiResources.MACHINE_DEPLOYMENTS)
                .inNamespace(EmbeddedKubernetes.NAMESPACE).withName(md).get());
        Set<String> used = new HashSet<>(refs(deployment));
        Set<String> machineSets = client.genericKubernetesResources(ClusterApiResources.MACHINES).inNamespace(EmbeddedKubernetes.NAMESPACE)
                .withLabel(DEPLOYMENT_LABEL, md).list().getItems().stream().map(m -> m.getMetadata().getLabels().get(SET_LABEL))
                .collect(Collectors.toSet());
        client.genericKubernetesResources(ClusterApiResources.MACHINE_SETS).inNamespace(EmbeddedKubernetes.NAMESPACE).list().getItems()
                .forEach(ms -> {
                    JsonNode o = JSON.valueToTree(ms);
                    if (o.at("/spec/replicas").asInt(0) > 0 || machineSets.contains(ms.getMetadata().getName())) {
                        used.addAll(refs(o));
                    }
                });
        List<String> ours = new ArrayList<>();
        for (var kind : List.of(ClusterApiResources.DEV_MACHINE_TEMPLATES, ClusterApiResources.KUBEADM_CONFIG_TEMPLATES)) {
            client.genericKubernetesResources(kind).inNamespace(EmbeddedKubernetes.NAMESPACE).withLabel(TEMPLATE_OF, md).list().getItems()
                    .forEach(t -> ours.add(kind.getKind() + "/" + t.getMetadata().getName()));
        }
        assertThat(ours).as("Nightshift's templates (%s), each in use", TEMPLATE_OF).isNotEmpty().allSatisfy(t -> assertThat(used).contains(t));
    }

    private static List<String> refs(JsonNode o) {
        List<String> refs = new ArrayList<>();
        for (String path : List.of("/spec/template/spec/infrastructureRef", "/spec/template/spec/bootstrap/configRef")) {
            JsonNode ref = o.at(path);
            if (ref.has("kind")) {
                refs.add(ref.path("kind").asText() + "/" + ref.path("name").asText());
            }
        }
        return refs;
    }

    static String machineDeployment(Start start, String pool) {
        return start.deployments().stream().filter(d -> pool.equals(d.getMetadata().getLabels().get(NodeMarks.POOL)))
                .map(d -> d.getMetadata().getName()).findFirst().orElseThrow();
    }

    /** The name part Nightshift's clones take from a hash: its first 10 hex digits. */
    static String hex10(StampedHash hash) {
        String hex = hash.value().toLowerCase(Locale.ROOT).replaceAll("[^0-9a-f]", "");
        return hex.substring(0, Math.min(10, hex.length()));
    }
}
