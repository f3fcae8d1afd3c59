package dev.nightshift.agent.provider.http;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.kube.NodePatcher;
import dev.nightshift.agent.provider.NodeUpdater;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.strategies.model.DesiredPool;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * {@code nodeUpdates.type: provider} with provider {@code http}: the cloud updates its machine in
 * place or restarts its kubelet ({@code POST /v1/machines/{id}/update}). The machine is
 * {@code updating} until done, then {@code running} with the target hashes in its annotations, or
 * {@code failed}; before each plan ({@link #settle}) the agent copies the hashes of a finished
 * update onto the node, or marks the node's update failed with the cloud's message.
 */
public final class MachineApiNodeUpdater implements NodeUpdater {

    private static final Logger LOG = LoggerFactory.getLogger(MachineApiNodeUpdater.class);
    private static final int MAX_REASON = 1024;

    private final MachineApi api;
    private final HttpMachineProvider machines;
    private final KubernetesClient client;
    private final NodePatcher patcher;

    public MachineApiNodeUpdater(MachineApi api, HttpMachineProvider machines, KubernetesClient client) {
        this.api = api;
        this.machines = machines;
        this.client = client;
        this.patcher = new NodePatcher(client);
    }

    @Override
    public void updateInPlace(DesiredPool pool, String node) {
        update(pool, node, UpdateRequest.Operation.IN_PLACE_UPDATE, pool.rollHash(), NodeMarks.IN_PLACE_STARTED_AT,
                NodeMarks.hashes(pool.rollHash(), pool.kubeletHash()));
    }

    @Override
    public void restartKubelet(DesiredPool pool, String node) {
        update(pool, node, UpdateRequest.Operation.RESTART_KUBELET, pool.kubeletHash(), NodeMarks.KUBELET_RESTART_AT,
                NodeMarks.kubeletHash(pool.kubeletHash()));
    }

    /**
     * The key is (pool, operation, machine, target) and the time the node's update was marked as
     * started ({@code startedMark}, written by the executor just before): a step repeated, by this
     * agent or by a restarted one, carries the same key and starts nothing new, while a later update
     * to a target the machine had before (A, B, then A again) is a new one.
     */
    private void update(DesiredPool pool, String node, UpdateRequest.Operation operation, StampedHash target, String startedMark,
                        Map<String, String> annotations) {
        ApiMachine m = machines.find(pool.name(), node).orElseThrow(() -> new IllegalStateException(
                "node " + node + " of pool " + pool.name() + " has no machine in the machine API: it cannot be updated there"));
        String started = Optional.ofNullable(client.nodes().withName(node).get()).map(n -> NodeMarks.annotations(n).get(startedMark))
                .orElse("");
        api.update(m.id(), IdempotencyKeys.of(pool.name(), operation.json(), m.id() + "@" + started, target.toString()),
                new UpdateRequest(operation, annotations, MachineRequests.spec(pool.spec())));
        machines.fold(pool.name(), m.withState(MachineState.UPDATING, null));
        LOG.info("machine {} (node {}) of pool {}: {} to {} asked for", m.id(), node, pool.name(), operation.json(), target);
    }

    @Override
    public void settle(DesiredPool pool) {
        settle(pool, node -> true);
    }

    /** Reads from the API, to patch it, only a node the cache shows {@code waiting} for its machine's update. */
    @Override
    public void settle(DesiredPool pool, Set<String> waiting) {
        settle(pool, waiting::contains);
    }

    private void settle(DesiredPool pool, Predicate<String> mayWait) {
        for (ApiMachine m : machines.listing(pool.name())) {
            if (m.nodeName() == null || (m.state() != MachineState.RUNNING && m.state() != MachineState.FAILED)
                    || !mayWait.test(m.nodeName())) {
                continue;
            }
            patcher.patch(m.nodeName(), n -> outcome(n, m));
        }
    }

    /**
     * What the node must be told of its machine's update: the hashes once the machine runs them
     * (the roll hash only when it is the in-place target the node waits for), or the failure.
     * Nothing for a node that waits for no update: its marks are its own.
     */
    private static Optional<Map<String, Object>> outcome(Node n, ApiMachine m) {
        Map<String, String> a = NodeMarks.annotations(n);
        String inPlaceTarget = a.get(NodeMarks.IN_PLACE_TARGET);
        boolean inPlace = inPlaceTarget != null && a.containsKey(NodeMarks.IN_PLACE_STARTED_AT);
        boolean restart = a.containsKey(NodeMarks.KUBELET_RESTART_AT);
        if (!inPlace && !restart) {
            return Optional.empty();
        }
        Map<String, Object> marks = new HashMap<>();
        if (m.state() == MachineState.FAILED) {
            if ("true".equals(a.get(NodeMarks.IN_PLACE_FAILED))) {
                return Optional.empty();
            }
            String reason = "machine " + m.id() + " failed its update: " + Objects.toString(m.message(), "the machine API gave no message");
            marks.put(NodeMarks.IN_PLACE_FAILED, "true");
            marks.put(NodeMarks.IN_PLACE_FAILED_REASON, reason.length() > MAX_REASON ? reason.substring(0, MAX_REASON) : reason);
            LOG.warn("node {}: {}", n.getMetadata().getName(), reason);
            return Optional.of(Map.of("metadata", Map.of("annotations", marks)));
        }
        Optional<StampedHash> roll = NodeMarks.rollHash(m.annotations());
        Optional<StampedHash> kubelet = NodeMarks.kubeletHash(m.annotations());
        if (inPlace && roll.filter(h -> h.value().equals(inPlaceTarget)).isPresent() && !roll.equals(NodeMarks.rollHash(a))) {
            marks.putAll(NodeMarks.rollHash(roll.get()));
            kubelet.ifPresent(h -> marks.putAll(NodeMarks.kubeletHash(h)));
        } else if (restart && kubelet.isPresent() && !kubelet.equals(NodeMarks.kubeletHash(a))) {
            marks.putAll(NodeMarks.kubeletHash(kubelet.get()));
        }
        return marks.isEmpty() ? Optional.empty() : Optional.of(Map.of("metadata", Map.of("annotations", marks)));
    }
}
