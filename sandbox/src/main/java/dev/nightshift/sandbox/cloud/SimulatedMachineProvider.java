package dev.nightshift.sandbox.cloud;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.provider.Machine;
import dev.nightshift.agent.provider.MachineProvider;
import dev.nightshift.agent.provider.NodeUpdater;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.strategies.model.DesiredPool;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * A cloud in a box: machines register as Ready Kubernetes nodes after a delay, in-place updates
 * and kubelet restarts apply after a delay, and failures can be injected. Used by the demo and the
 * end-to-end tests; it plays the part of the cloud, so it keeps its own state, separate from the
 * agent's (which keeps none). It is both the machine provider and the node updater. The marks it writes on the nodes (hashes, surge partner, in-place
 * failure) are written through {@link NodeMarks}, as the agent's own.
 */
public final class SimulatedMachineProvider implements MachineProvider, NodeUpdater {

    private static final Logger LOG = LoggerFactory.getLogger(SimulatedMachineProvider.class);

    /** Timing and failure injection. Probabilities are drawn from the provider's seeded generator. */
    public record Behaviour(Duration createDelay, Duration inPlaceDelay, Duration restartDelay,
                            double neverRegisters, double inPlaceFailure) {
        public static Behaviour fast() {
            return new Behaviour(Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofMillis(500), 0, 0);
        }
    }

    private final KubernetesClient client;
    private final ScheduledExecutorService executor;
    private final Clock clock;
    private final RandomGenerator random;
    private final Predicate<String> bastionPool;
    private final Behaviour behaviour;
    private final Map<String, Machine> machines = new ConcurrentHashMap<>();
    private final Map<String, StampedHash> inPlaceTargets = new ConcurrentHashMap<>();
    private int created;

    public SimulatedMachineProvider(KubernetesClient client, ScheduledExecutorService executor, Clock clock,
                                    RandomGenerator random, Predicate<String> bastionPool, Behaviour behaviour) {
        this.client = client;
        this.executor = executor;
        this.clock = clock;
        this.random = random;
        this.bastionPool = bastionPool;
        this.behaviour = behaviour;
    }

    /** Puts machines that already run (registered, Ready) into the box: a cluster as it was before Nightshift. */
    public void seed(String pool, String name, Optional<StampedHash> rollHash, Optional<StampedHash> kubeletHash) {
        Instant now = clock.instant();
        machines.put(name, machine(name, pool, now, rollHash.orElse(null), kubeletHash.orElse(null), Optional.empty(), true));
        if (!bastionPool.test(pool)) {
            client.nodes().resource(node(name, pool, rollHash, kubeletHash, Optional.empty(), true)).create();
        }
    }

    /** Registered machines are nodes of their own name; bastions never become nodes. */
    private Machine machine(String name, String pool, Instant createdAt, StampedHash rollHash, StampedHash kubeletHash,
                            Optional<String> surgeFor, boolean running) {
        return new Machine(name, pool, createdAt, rollHash, kubeletHash, surgeFor, running,
                running && !bastionPool.test(pool) ? Optional.of(name) : Optional.empty(), false, false, 0);
    }

    @Override
    public List<Machine> machines(String pool) {
        return machines.values().stream().filter(m -> m.pool().equals(pool)).toList();
    }

    @Override
    public void create(DesiredPool pool, String surgeFor) {
        create(pool.name(), surgeFor, pool.rollHash(), pool.kubeletHash());
    }

    private synchronized void create(String pool, String surgeFor, StampedHash rollHash, StampedHash kubeletHash) {
        String name = pool + "-" + Integer.toString(100_000 + (++created) * 7 + random.nextInt(7), 36);
        Optional<String> partner = Optional.ofNullable(surgeFor).filter(s -> !s.isEmpty());
        Machine machine = machine(name, pool, clock.instant(), rollHash, kubeletHash, partner, false);
        machines.put(name, machine);
        LOG.info("machine {} of pool {} requested{}", name, pool, partner.map(p -> " to stand in for " + p).orElse(""));
        if (random.nextDouble() < behaviour.neverRegisters()) {
            return;
        }
        executor.schedule(() -> register(machine), behaviour.createDelay().toMillis(), TimeUnit.MILLISECONDS);
    }

    // Synchronized with delete: a machine deleted while its node registers must not come back.
    private synchronized void register(Machine machine) {
        if (!machines.containsKey(machine.name())) {
            return;
        }
        machines.put(machine.name(), machine(machine.name(), machine.pool(), machine.createdAt(), machine.rollHash(),
                machine.kubeletHash(), machine.surgeFor(), true));
        if (bastionPool.test(machine.pool())) {
            return;
        }
        Node node = node(machine.name(), machine.pool(), Optional.ofNullable(machine.rollHash()),
                Optional.ofNullable(machine.kubeletHash()), machine.surgeFor(), true);
        // As a machine asked for through the machine API registers (MachineRequests): with the start-up taint, which
        // the agent takes off once it has seen the node.
        node.getSpec().setTaints(List.of(new TaintBuilder().withKey(NodeMarks.STARTUP_TAINT).withValue(NodeMarks.STARTUP_TAINT_VALUE)
                .withEffect(NodeMarks.STARTUP_TAINT_EFFECT).build()));
        client.nodes().resource(node).create();
    }

    private Node node(String name, String pool, Optional<StampedHash> roll, Optional<StampedHash> kubelet,
                      Optional<String> surgeFor, boolean ready) {
        Map<String, String> annotations = new HashMap<>();
        roll.ifPresent(h -> annotations.putAll(NodeMarks.rollHash(h)));
        kubelet.ifPresent(h -> annotations.putAll(NodeMarks.kubeletHash(h)));
        surgeFor.ifPresent(s -> annotations.put(NodeMarks.SURGE_FOR, s));
        return new NodeBuilder()
                .withNewMetadata().withName(name).addToLabels(NodeMarks.POOL, pool)
                .addToLabels("kubernetes.io/hostname", name).addToAnnotations(annotations).endMetadata()
                .withNewSpec().endSpec()
                .withNewStatus().withConditions(readyCondition(ready)).endStatus()
                .build();
    }

    private NodeCondition readyCondition(boolean ready) {
        return new NodeConditionBuilder().withType("Ready").withStatus(ready ? "True" : "False")
                .withReason(ready ? "KubeletReady" : "KubeletNotReady")
                .withLastTransitionTime(clock.instant().toString()).build();
    }

    /**
     * One atomic call, as a cloud's scaling-group API is: the machine is gone and its replacement
     * requested before this returns; the node objects change on the cloud's own threads, so a
     * caller interrupted mid-call cannot leave the pool a machine short.
     */
    @Override
    public synchronized Deletion delete(DesiredPool pool, String machine, boolean replace) {
        if (machines.remove(machine) == null) {
            return Deletion.started("machine " + machine + " is already gone");
        }
        inPlaceTargets.remove(machine);
        if (replace) {
            create(pool.name(), null, pool.rollHash(), pool.kubeletHash());
        }
        executor.execute(() -> client.nodes().withName(machine).delete());
        LOG.info("machine {} of pool {} deleted{}", machine, pool.name(), replace ? ", replacement requested" : "");
        return Deletion.started("deleted machine " + machine + (replace ? ", replacement requested" : ""));
    }

    /**
     * The cloud takes a machine away on its own (a spot interruption, a health check that terminates without
     * replacing): the machine and its node are gone, and nothing asks for a replacement.
     */
    public synchronized void lose(String machine) {
        if (machines.remove(machine) == null) {
            return;
        }
        inPlaceTargets.remove(machine);
        client.nodes().withName(machine).delete();
        LOG.info("machine {} lost behind Nightshift's back", machine);
    }

    @Override
    public void updateInPlace(DesiredPool pool, String machine) {
        StampedHash rollHash = pool.rollHash();
        StampedHash kubeletHash = pool.kubeletHash();
        if (rollHash.equals(inPlaceTargets.put(machine, rollHash))) {
            return;
        }
        executor.execute(() -> setReady(machine, false));
        boolean fails = random.nextDouble() < behaviour.inPlaceFailure();
        executor.schedule(() -> finishInPlace(machine, rollHash, kubeletHash, fails),
                behaviour.inPlaceDelay().toMillis(), TimeUnit.MILLISECONDS);
    }

    private void finishInPlace(String machine, StampedHash rollHash, StampedHash kubeletHash, boolean fails) {
        if (!rollHash.equals(inPlaceTargets.get(machine))) {
            return;
        }
        inPlaceTargets.remove(machine);
        client.nodes().withName(machine).edit(n -> {
            if (fails) {
                n.getMetadata().getAnnotations().put(NodeMarks.IN_PLACE_FAILED, "true");
            } else {
                n.getMetadata().getAnnotations().putAll(NodeMarks.hashes(rollHash, kubeletHash));
            }
            n.getStatus().setConditions(new ArrayList<>(List.of(readyCondition(true))));
            return n;
        });
    }

    @Override
    public void stamp(String pool, String machine, StampedHash rollHash, StampedHash kubeletHash) {
        machines.computeIfPresent(machine, (name, m) -> machine(name, m.pool(), m.createdAt(), rollHash, kubeletHash,
                m.surgeFor(), m.running()));
    }

    @Override
    public void restartKubelet(DesiredPool pool, String machine) {
        StampedHash kubeletHash = pool.kubeletHash();
        executor.schedule(() -> client.nodes().withName(machine).edit(n -> {
            n.getMetadata().getAnnotations().putAll(NodeMarks.kubeletHash(kubeletHash));
            return n;
        }), behaviour.restartDelay().toMillis(), TimeUnit.MILLISECONDS);
    }

    private void setReady(String machine, boolean ready) {
        client.nodes().withName(machine).edit(n -> {
            n.getStatus().setConditions(new ArrayList<>(List.of(readyCondition(ready))));
            return n;
        });
    }
}
