package dev.nightshift.sandbox;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.sandbox.capi.ClusterApiResources;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

/**
 * What Cluster API's objects did, from the test's own watches of the Machines and MachineDeployments on the sandbox's
 * API server (in the sandbox's process): every Machine event in the order delivered, every change of a
 * MachineDeployment's {@code spec.replicas}, and the instant a Machine first starts to leave (replicas lowered, or a
 * Machine being deleted), for a crash test to kill the agent there.
 */
final class ClusterApiWatch implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String DELETE_MACHINE = "cluster.x-k8s.io/delete-machine";
    private static final String DEPLOYMENT_NAME = "cluster.x-k8s.io/deployment-name";

    /**
     * A Machine as the watch saw it at one event.
     *
     * @param deployment    its {@code cluster.x-k8s.io/deployment-name} label
     * @param node          {@code status.nodeRef.name}, null until its node joined
     * @param deleting      it has a {@code deletionTimestamp}
     * @param markedToLeave it carries {@code cluster.x-k8s.io/delete-machine}
     * @param rollHash      its {@code nightshift.dev/roll-hash} annotation, null when none
     */
    record MachineEvent(long sequence, Instant time, NodeEvent.Type type, String machine, String deployment, String node,
                        boolean deleting, boolean markedToLeave, String rollHash) {

        String line() {
            return sequence + " " + time + " " + type + " Machine " + machine + " node=" + node + (deleting ? " deleting" : "")
                    + (markedToLeave ? " delete-machine" : "");
        }
    }

    /** A MachineDeployment's {@code spec.replicas} changed from {@code from} to {@code to} (from 0 when first seen). */
    record ReplicasChange(long sequence, Instant time, String deployment, int from, int to) {

        String line() {
            return sequence + " " + time + " MachineDeployment " + deployment + " replicas " + from + " -> " + to;
        }
    }

    private final Clock clock;
    private final List<MachineEvent> machines = new ArrayList<>();
    private final List<ReplicasChange> replicas = new ArrayList<>();
    private final List<String> lines = new ArrayList<>();
    private final Map<String, Integer> replicasNow = new HashMap<>();
    private final SharedIndexInformer<GenericKubernetesResource> machineInformer;
    private final SharedIndexInformer<GenericKubernetesResource> deploymentInformer;
    private final Set<String> seenLeaving = new HashSet<>();
    private long sequence;
    private Consumer<String> onLeaving;
    private int leavingToGo;

    /** Starts watching the Machines and MachineDeployments of {@code namespace}. */
    ClusterApiWatch(KubernetesClient client, String namespace, Clock clock) {
        this.clock = clock;
        this.deploymentInformer = client.genericKubernetesResources(ClusterApiResources.MACHINE_DEPLOYMENTS).inNamespace(namespace)
                .inform(handler(this::deployment));
        this.machineInformer = client.genericKubernetesResources(ClusterApiResources.MACHINES).inNamespace(namespace)
                .inform(handler(this::machine));
    }

    private interface Recorder {
        void record(NodeEvent.Type type, GenericKubernetesResource object);
    }

    private static ResourceEventHandler<GenericKubernetesResource> handler(Recorder recorder) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(GenericKubernetesResource o) {
                recorder.record(NodeEvent.Type.ADDED, o);
            }

            @Override
            public void onUpdate(GenericKubernetesResource old, GenericKubernetesResource o) {
                recorder.record(NodeEvent.Type.MODIFIED, o);
            }

            @Override
            public void onDelete(GenericKubernetesResource o, boolean finalStateUnknown) {
                recorder.record(NodeEvent.Type.DELETED, o);
            }
        };
    }

    private synchronized void machine(NodeEvent.Type type, GenericKubernetesResource m) {
        JsonNode o = JSON.valueToTree(m);
        String node = o.at("/status/nodeRef/name").asText(null);
        MachineEvent event = new MachineEvent(++sequence, clock.instant(), type, m.getMetadata().getName(),
                o.at("/metadata/labels").path(DEPLOYMENT_NAME).asText(null), node,
                m.getMetadata().getDeletionTimestamp() != null, o.at("/metadata/annotations").has(DELETE_MACHINE),
                o.at("/metadata/annotations").path("nightshift.dev/roll-hash").asText(null));
        machines.add(event);
        lines.add(event.line());
        // Counted once per Machine: a Machine being deleted is modified again (finalizers, status) before it is gone.
        if (event.deleting() && type != NodeEvent.Type.DELETED && seenLeaving.add(event.machine())) {
            leaving("Machine " + event.machine() + " of node " + event.node() + " being deleted");
        }
    }

    private synchronized void deployment(NodeEvent.Type type, GenericKubernetesResource md) {
        String name = md.getMetadata().getName();
        int now = JSON.valueToTree(md).at("/spec/replicas").asInt(0);
        int before = replicasNow.getOrDefault(name, 0);
        if (type == NodeEvent.Type.DELETED || now == before) {
            return;
        }
        replicasNow.put(name, now);
        ReplicasChange change = new ReplicasChange(++sequence, clock.instant(), name, before, now);
        replicas.add(change);
        lines.add(change.line());
        if (now < before) {
            leaving("MachineDeployment " + name + "'s replicas lowered " + before + " -> " + now);
        }
    }

    private void leaving(String what) {
        if (onLeaving != null && --leavingToGo == 0) {
            Consumer<String> action = onLeaving;
            onLeaving = null;
            action.accept(what);
        }
    }

    /**
     * Runs {@code action}, with what happened, on the watch's thread the first time from now that a Machine starts to
     * leave: a MachineDeployment's replicas lowered, or a Machine being deleted. Once.
     */
    synchronized void whenAMachineStartsToLeave(Consumer<String> action) {
        whenMachinesStartToLeave(1, action);
    }

    /**
     * {@link #whenAMachineStartsToLeave}, at the {@code n}th time from now: each lowering of a MachineDeployment's
     * replicas counts, and each Machine whose deletion is seen, once. Replaces an action not yet run.
     */
    synchronized void whenMachinesStartToLeave(int n, Consumer<String> action) {
        this.leavingToGo = n;
        this.onLeaving = action;
    }

    synchronized List<MachineEvent> machineEvents() {
        return List.copyOf(machines);
    }

    synchronized List<ReplicasChange> replicasChanges() {
        return List.copyOf(replicas);
    }

    /** The most Machines a MachineDeployment had at once, the Machines then, and the event at which it was first reached. */
    record Peak(int machines, Set<String> names, String at) {
    }

    /**
     * The most Machine objects of {@code deployment} at once, from their creation until they are gone (a Machine being
     * deleted still takes its place), replaying the Machine events in the order the watch delivered them.
     */
    synchronized Peak peak(String deployment) {
        Set<String> present = new LinkedHashSet<>();
        Peak peak = new Peak(0, Set.of(), "no event");
        for (MachineEvent e : machines) {
            if (!deployment.equals(e.deployment())) {
                continue;
            }
            if (e.type() == NodeEvent.Type.DELETED) {
                present.remove(e.machine());
            } else {
                present.add(e.machine());
            }
            if (present.size() > peak.machines()) {
                peak = new Peak(present.size(), Set.copyOf(present), e.line());
            }
        }
        return peak;
    }

    /**
     * Each Machine's node as the machine log's vocabulary says it ({@code registered}, with the pool), for
     * {@link CrashJudge#availableBelowLimit}: a node belongs to the pool of the Machine whose {@code nodeRef} names it,
     * before the agent labels it.
     */
    synchronized List<MachineApiLogs.MachineEvent> nodesOfMachines(String deployment, String pool) {
        return machines.stream().filter(e -> deployment.equals(e.deployment()) && e.node() != null)
                .map(e -> new MachineApiLogs.MachineEvent(e.sequence(), "registered", e.machine(), pool, e.node(), null, null, null))
                .toList();
    }

    /** The last {@code n} events of both kinds, in order, for a failure message. */
    synchronized String tail(int n) {
        return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
    }

    @Override
    public void close() {
        machineInformer.close();
        deploymentInformer.close();
    }
}
