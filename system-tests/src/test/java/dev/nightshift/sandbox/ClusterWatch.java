package dev.nightshift.sandbox;

import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

import dev.nightshift.sandbox.demo.DemoWorkloads;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

/**
 * What the cluster saw, from the test's own watches on the sandbox's API server (which runs in
 * the sandbox's process): every node event in the order delivered, the order in which nodes began
 * to drain, and the application pods on each node now.
 */
final class ClusterWatch implements AutoCloseable {

    private final Clock clock;
    private final List<NodeEvent> events = new ArrayList<>();
    private final Set<String> draining = new LinkedHashSet<>();
    private final SharedIndexInformer<Node> nodes;
    private final SharedIndexInformer<Pod> pods;
    private int drainTrigger;
    private Consumer<String> onDrain = node -> { };

    /** Starts watching; returns once both watches have listed what there is. */
    ClusterWatch(KubernetesClient client, Clock clock) {
        this.clock = clock;
        this.nodes = client.nodes().inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Node node) {
                record(NodeEvent.Type.ADDED, node);
            }

            @Override
            public void onUpdate(Node old, Node node) {
                record(NodeEvent.Type.MODIFIED, node);
            }

            @Override
            public void onDelete(Node node, boolean finalStateUnknown) {
                record(NodeEvent.Type.DELETED, node);
            }
        });
        this.pods = client.pods().inNamespace(DemoWorkloads.NAMESPACE).inform();
    }

    private synchronized void record(NodeEvent.Type type, Node node) {
        NodeEvent event = NodeEvent.of(events.size() + 1, clock.instant(), type, node);
        events.add(event);
        if (event.drainStartedAt() != null && draining.add(event.node()) && draining.size() == drainTrigger) {
            onDrain.accept(event.node());
        }
    }

    /**
     * Runs {@code action} with the node's name on the watch's thread the instant the
     * {@code k}th node to drain is seen with its drain mark: a crash test kills the agent there,
     * as close to the drain's start as the test can see it, without waiting for a poll.
     */
    synchronized void whenDraining(int k, Consumer<String> action) {
        this.drainTrigger = k;
        this.onDrain = action;
    }

    /** Every node event so far. */
    synchronized List<NodeEvent> events() {
        return List.copyOf(events);
    }

    /** The nodes that began to drain, in the order they did. */
    synchronized List<String> drainOrder() {
        return List.copyOf(draining);
    }

    /** The application pods on {@code node} now, as the pod watch has it. */
    List<String> podsOn(String node) {
        return pods.getStore().list().stream().filter(p -> node.equals(p.getSpec().getNodeName()))
                .map(p -> p.getMetadata().getName()).sorted().toList();
    }

    @Override
    public void close() {
        nodes.close();
        pods.close();
    }
}
