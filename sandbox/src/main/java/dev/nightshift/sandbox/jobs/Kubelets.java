package dev.nightshift.sandbox.jobs;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.NodeSystemInfo;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

import dev.nightshift.sandbox.jobs.Faults.Fate;
import dev.nightshift.sandbox.jobs.Faults.Kind;

/**
 * The scheduler and the nodes' side of the double, for the Job pods of the namespace: a pending pod is bound to the
 * first node {@link Scheduling} allows, or keeps {@code PodScheduled=False} (reason {@code Unschedulable}) and is tried
 * again on every pass, as the scheduler retries when the cluster changes. A bound pod's container runs after
 * {@link Behaviour#podStartDelay()}; after {@link Behaviour#runTime()} its updater does to the node what
 * {@link UpdaterOrder} asks — or what its {@link Fate} says instead — and exits.
 *
 * <p>{@code restart-kubelet}: {@code status.nodeInfo.kubeletVersion} becomes the target's (a NotReady blip of
 * {@link Behaviour#kubeletRestartBlip()} when set), then the pod succeeds. {@code in-place-update}: the node reboots,
 * NotReady for {@link Behaviour#rebootTime()}, and comes back Ready (a new {@code lastTransitionTime}) running the
 * target's image ({@code osImage}) and kubelet; then the pod succeeds. A failing updater's pod ends {@code Failed}, its
 * container terminated with exit code 1 and the fault's text as termination message; a never-finishing one runs until
 * deleted; one without effect exits 0 and changes nothing.
 */
final class Kubelets {

    private static final Logger LOG = LoggerFactory.getLogger(Kubelets.class);

    /** What the double remembers of a pod it runs, by uid: the node's side of it. */
    private static final class Run {
        final Instant bound;
        Instant started;
        Fate fate;
        boolean nodeDown;
        boolean effectApplied;

        Run(Instant bound) {
            this.bound = bound;
        }
    }

    private final KubernetesClient client;
    private final String namespace;
    private final Behaviour behaviour;
    private final Faults faults;
    private final Consumer<Duration> passIn;
    private final Map<String, Run> runs = new ConcurrentHashMap<>();
    /**
     * Nodes whose updater pod ended, by when: a kubelet reports its node's status again afterwards
     * (a new {@code lastHeartbeatTime} on Ready), which is how the agent sees the node Ready after
     * the Job. Reported a little over a second later, since API times have whole seconds.
     */
    private final Map<String, Instant> reportsDue = new ConcurrentHashMap<>();

    Kubelets(KubernetesClient client, String namespace, Behaviour behaviour, Faults faults, Consumer<Duration> passIn) {
        this.client = client;
        this.namespace = namespace;
        this.behaviour = behaviour;
        this.faults = faults;
        this.passIn = passIn;
    }

    /** One pass over the Job pods of the namespace (pods without a controlling Job are not the double's business). */
    void reconcile(List<Pod> pods, List<Node> nodes, Instant now) {
        runs.keySet().retainAll(pods.stream().map(p -> p.getMetadata().getUid()).toList());
        reportsDue.forEach((node, ended) -> {
            if (!now.isBefore(ended.plus(REPORT_AFTER)) && reportsDue.remove(node, ended)) {
                reportStatus(node, now);
            }
        });
        for (Pod pod : pods) {
            if (JobSync.controllerUid(pod).isEmpty() || JobSync.terminal(pod) || pod.getMetadata().getDeletionTimestamp() != null) {
                continue;
            }
            String nodeName = pod.getSpec().getNodeName();
            if (nodeName == null || nodeName.isEmpty()) {
                schedule(pod, nodes, now);
            } else {
                run(pod, nodeName, now);
            }
        }
    }

    // ---- the scheduler -------------------------------------------------------------------------------------------------

    private void schedule(Pod pod, List<Node> nodes, Instant now) {
        Scheduling.Placement placement = Scheduling.place(pod.getSpec(), nodes);
        String name = pod.getMetadata().getName();
        if (placement.node().isEmpty()) {
            PodStatus status = new PodStatusBuilder(pod.getStatus()).withPhase("Pending").build();
            setCondition(status, "PodScheduled", false, "Unschedulable", placement.message(), now);
            if (!status.equals(pod.getStatus())) {
                writeStatus(pod, status);
                LOG.info("Job double: pod {} is unschedulable: {}", name, placement.message());
            }
            return;
        }
        String node = placement.node().get();
        // The binding: the scheduler's POST to pods/binding sets spec.nodeName; the store has no binding subresource.
        Pod bound = client.pods().inNamespace(namespace).withName(name)
                .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"nodeName\":\"" + node + "\"}}");
        PodStatus status = new PodStatusBuilder(bound.getStatus()).withPhase("Pending").build();
        setCondition(status, "PodScheduled", true, null, null, now);
        writeStatus(bound, status);
        runs.put(bound.getMetadata().getUid(), new Run(now));
        LOG.info("Job double: pod {} bound to node {}", name, node);
        passIn.accept(behaviour.podStartDelay());
    }

    // ---- the kubelet and the updater in its pod ------------------------------------------------------------------------

    private void run(Pod pod, String nodeName, Instant now) {
        Run run = runs.computeIfAbsent(pod.getMetadata().getUid(), uid -> new Run(now));
        if (run.started == null) {
            if (JobSync.phase(pod, "Running")) {
                // Started before the double (re)started: the updater's run starts over.
                run.started = now;
            } else {
                Instant due = run.bound.plus(behaviour.podStartDelay());
                if (now.isBefore(due)) {
                    passIn.accept(Duration.between(now, due));
                    return;
                }
                run.fate = faults.next(nodeName);
                writeStatus(pod, running(pod, now));
                run.started = now;
                passIn.accept(behaviour.runTime());
                return;
            }
        }
        if (run.fate == null) {
            run.fate = faults.next(nodeName);
        }
        UpdaterOrder order = UpdaterOrder.of(pod.getSpec());
        Fate fate = order.problem().isPresent() && run.fate.kind() != Kind.NEVER_FINISH ? new Fate(Kind.FAIL, order.problem().get())
                : run.fate;
        if (fate.kind() == Kind.NEVER_FINISH) {
            return;
        }
        Instant effectAt = run.started.plus(behaviour.runTime());
        if (now.isBefore(effectAt)) {
            passIn.accept(Duration.between(now, effectAt));
            return;
        }
        if (fate.kind() == Kind.FAIL) {
            writeStatus(pod, terminated(pod, 1, "Error", fate.message(), now));
            LOG.info("Job double: pod {} on {} failed: {}", pod.getMetadata().getName(), nodeName, fate.message());
            return;
        }
        boolean effect = fate.kind() == Kind.SUCCEED;
        Duration down = !effect ? Duration.ZERO
                : UpdaterOrder.IN_PLACE_UPDATE.equals(order.operation()) ? behaviour.rebootTime()
                : UpdaterOrder.RESTART_KUBELET.equals(order.operation()) ? behaviour.kubeletRestartBlip()
                : Duration.ZERO;
        if (!down.isZero() && !run.nodeDown) {
            setNodeReady(nodeName, false, UpdaterOrder.IN_PLACE_UPDATE.equals(order.operation())
                    ? "node is rebooting for an in-place update" : "kubelet is restarting", now);
            run.nodeDown = true;
            LOG.info("Job double: node {} NotReady ({})", nodeName, order.operation());
        }
        Instant backAt = effectAt.plus(down);
        if (now.isBefore(backAt)) {
            passIn.accept(Duration.between(now, backAt));
            return;
        }
        if (effect && !run.effectApplied) {
            applyEffect(nodeName, order, run.nodeDown, now);
            run.effectApplied = true;
        }
        writeStatus(pod, terminated(pod, 0, "Completed", null, now));
        reportsDue.put(nodeName, now);
        passIn.accept(REPORT_AFTER);
        LOG.info("Job double: pod {} on {} succeeded{}", pod.getMetadata().getName(), nodeName, effect ? "" : " without effect (fault)");
    }

    private void applyEffect(String nodeName, UpdaterOrder order, boolean wasDown, Instant now) {
        Node node = client.nodes().withName(nodeName).get();
        if (node == null) {
            return;
        }
        // A kubelet always reports its nodeInfo; a node created without one (the simulated cloud's) gets it now.
        if (node.getStatus().getNodeInfo() == null) {
            node.getStatus().setNodeInfo(new NodeSystemInfo());
        }
        var info = node.getStatus().getNodeInfo();
        order.kubeletVersion().ifPresent(info::setKubeletVersion);
        if (UpdaterOrder.IN_PLACE_UPDATE.equals(order.operation())) {
            order.osImage().ifPresent(info::setOsImage);
        }
        if (wasDown) {
            node.getStatus().setConditions(readyConditions(node, true, "kubelet is posting ready status", now));
        }
        client.nodes().resource(node).updateStatus();
        LOG.info("Job double: node {} {} kubelet {}{}", nodeName, wasDown ? "Ready again," : "runs",
                order.kubeletVersion().orElse("?"), UpdaterOrder.IN_PLACE_UPDATE.equals(order.operation())
                        ? ", image " + order.osImage().orElse("?") : "");
    }

    private static final Duration REPORT_AFTER = Duration.ofMillis(1100);

    /** The kubelet's next status report: Ready's heartbeat moves on, its transition time stays. */
    private void reportStatus(String nodeName, Instant now) {
        Node node = client.nodes().withName(nodeName).get();
        if (node == null || node.getStatus() == null || node.getStatus().getConditions() == null) {
            return;
        }
        node.getStatus().getConditions().stream().filter(c -> "Ready".equals(c.getType()))
                .forEach(c -> c.setLastHeartbeatTime(ApiTime.format(now)));
        client.nodes().resource(node).updateStatus();
    }

    private void setNodeReady(String nodeName, boolean ready, String message, Instant now) {
        Node node = client.nodes().withName(nodeName).get();
        if (node == null) {
            return;
        }
        node.getStatus().setConditions(readyConditions(node, ready, message, now));
        client.nodes().resource(node).updateStatus();
    }

    private static List<NodeCondition> readyConditions(Node node, boolean ready, String message, Instant now) {
        List<NodeCondition> conditions = new ArrayList<>(Optional.ofNullable(node.getStatus().getConditions()).orElse(List.of()));
        conditions.removeIf(c -> "Ready".equals(c.getType()));
        conditions.add(new NodeConditionBuilder().withType("Ready").withStatus(ready ? "True" : "False")
                .withReason(ready ? "KubeletReady" : "KubeletNotReady").withMessage(message)
                .withLastHeartbeatTime(ApiTime.format(now)).withLastTransitionTime(ApiTime.format(now)).build());
        return conditions;
    }

    private static PodStatus running(Pod pod, Instant now) {
        PodStatus status = new PodStatusBuilder(pod.getStatus()).withPhase("Running").withStartTime(ApiTime.format(now))
                .withContainerStatuses(pod.getSpec().getContainers().stream().map(c -> new ContainerStatusBuilder()
                        .withName(c.getName()).withImage(c.getImage()).withReady(true).withStarted(true).withRestartCount(0)
                        .withNewState().withNewRunning().withStartedAt(ApiTime.format(now)).endRunning().endState().build()).toList())
                .build();
        for (String type : List.of("PodReadyToStartContainers", "Initialized", "ContainersReady", "Ready")) {
            setCondition(status, type, true, null, null, now);
        }
        return status;
    }

    /** Every container terminated with {@code exitCode}; a message is what the container wrote to its termination log. */
    private static PodStatus terminated(Pod pod, int exitCode, String reason, String message, Instant now) {
        PodStatus status = new PodStatusBuilder(pod.getStatus()).withPhase(exitCode == 0 ? "Succeeded" : "Failed").build();
        List<ContainerStatus> containers = new ArrayList<>();
        for (ContainerStatus c : Optional.ofNullable(status.getContainerStatuses()).orElse(List.of())) {
            String startedAt = c.getState() != null && c.getState().getRunning() != null ? c.getState().getRunning().getStartedAt()
                    : ApiTime.format(now);
            containers.add(new ContainerStatusBuilder(c).withReady(false).withStarted(false).withNewState().withNewTerminated()
                    .withExitCode(exitCode).withReason(reason).withMessage(message).withStartedAt(startedAt)
                    .withFinishedAt(ApiTime.format(now)).endTerminated().endState().build());
        }
        status.setContainerStatuses(containers);
        for (String type : List.of("PodReadyToStartContainers", "ContainersReady", "Ready")) {
            setCondition(status, type, false, "PodCompleted", null, now);
        }
        return status;
    }

    private static void setCondition(PodStatus status, String type, boolean value, String reason, String message, Instant now) {
        List<PodCondition> conditions = new ArrayList<>(Optional.ofNullable(status.getConditions()).orElse(List.of()));
        String wanted = value ? "True" : "False";
        Optional<PodCondition> have = conditions.stream().filter(c -> type.equals(c.getType())).findFirst();
        if (have.isPresent() && wanted.equals(have.get().getStatus()) && Objects.equals(reason, have.get().getReason())
                && Objects.equals(message, have.get().getMessage())) {
            return;
        }
        conditions.removeIf(c -> type.equals(c.getType()));
        conditions.add(new PodConditionBuilder().withType(type).withStatus(wanted).withReason(reason).withMessage(message)
                .withLastTransitionTime(have.filter(c -> wanted.equals(c.getStatus())).map(PodCondition::getLastTransitionTime)
                        .orElse(ApiTime.format(now))).build());
        status.setConditions(conditions);
    }

    private void writeStatus(Pod pod, PodStatus status) {
        client.pods().inNamespace(namespace).resource(new PodBuilder(pod).withStatus(status).build()).updateStatus();
    }
}
