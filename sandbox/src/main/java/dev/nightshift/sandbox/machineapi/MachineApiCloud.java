package dev.nightshift.sandbox.machineapi;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.provider.http.ApiMachine;
import dev.nightshift.agent.provider.http.MachineApi;
import dev.nightshift.agent.provider.http.MachineApiException;
import dev.nightshift.agent.provider.http.MachineRequest;
import dev.nightshift.agent.provider.http.MachineState;
import dev.nightshift.agent.provider.http.UpdateRequest;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * A simulated cloud behind the machine API (what {@code nightshift sandbox} serves with
 * {@link MachineApiServer}, and what tests may drive directly): machines are asked for, boot after
 * a delay and register as Ready nodes of the embedded Kubernetes API with exactly the labels and
 * taints asked for (and {@code kubernetes.io/hostname}), and no annotations: the request's
 * annotations (Nightshift's hashes) stay on the machine record, and the agent copies them onto the
 * node. An adapter that passes the pool to the kubelet ({@code --node-labels}) labels its nodes with
 * {@code nightshift.dev/pool} as well: {@link Registration#WITH_POOL_LABEL} plays one. Deleting takes
 * a delay too; a replace terminates the old machine and creates the new one under one lock, so the
 * pool never shrinks whatever the client does after. Failures are injected with probabilities drawn
 * from a seeded generator.
 *
 * <p>Idempotency: a key seen before answers the machine its first request made and does nothing.
 * A key is forgotten once the machine it names is gone, because keys are deterministic for what is
 * asked: a plain create's key (pool, create, which create, target hash) recurs, rightly, when the
 * pool needs a machine again after the first one was deleted (scaled down, or failed), and must then
 * make a new machine, not answer with one that no longer exists.
 *
 * <p>Every state change is written to the {@link MachineLog}. Errors are {@link MachineApiException}s
 * carrying the HTTP status the server answers with (404 unknown machine, 409 a request the
 * machine's state or the key's first use does not allow).
 */
public final class MachineApiCloud implements MachineApi {

    private static final Logger LOG = LoggerFactory.getLogger(MachineApiCloud.class);
    private static final String HOSTNAME = "kubernetes.io/hostname";

    /**
     * Timing and failure injection; probabilities are drawn from the cloud's seeded generator.
     *
     * @param createDelay   from a create to the node registering
     * @param deleteDelay   from a delete (or replace) to the node and the machine being gone
     * @param updateDelay   an in-place update, during which the node is NotReady
     * @param restartDelay  a kubelet restart (the node stays Ready)
     * @param createFailure the chance that a machine never boots: it ends {@code failed} after {@code createDelay}
     * @param updateFailure the chance that an update ends {@code failed}
     */
    public record Behaviour(Duration createDelay, Duration deleteDelay, Duration updateDelay, Duration restartDelay,
                            double createFailure, double updateFailure) {

        public Behaviour {
            if (createFailure < 0 || createFailure > 1 || updateFailure < 0 || updateFailure > 1) {
                throw new IllegalArgumentException("failure probabilities are between 0 and 1");
            }
        }

        /** What the sandbox runs: quick enough to watch a rollout, slow enough to see every state. */
        public static Behaviour sandbox() {
            return new Behaviour(Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofMillis(500), 0, 0);
        }
    }

    /** What a registering node carries besides its hostname. */
    public enum Registration {
        /** Exactly the request's labels and taints: what the contract asks of an adapter. */
        REQUEST_LABELS,
        /**
         * The request's labels and taints and the pool's label {@code nightshift.dev/pool}, as an adapter that passes
         * the pool to the kubelet's {@code --node-labels} registers them (seeded nodes too); still no annotations.
         */
        WITH_POOL_LABEL
    }

    /**
     * What a write did.
     *
     * @param machine  the machine it made, replaced into or updated, as it is now
     * @param repeated the key was seen before: nothing was done (the server answers 200, not 201, to a create)
     */
    public record Outcome(ApiMachine machine, boolean repeated) {
    }

    /** What a key's first request was, and the machine it made or changed. */
    private record FirstUse(String operation, String machine) {
    }

    private final KubernetesClient client;
    private final ScheduledExecutorService executor;
    private final Clock clock;
    private final RandomGenerator random;
    private final Behaviour behaviour;
    private final MachineLog log;
    private final java.util.function.Predicate<String> headless;
    private final Registration registration;

    // Guarded by this. Insertion order is creation order, which listings keep.
    private final Map<String, ApiMachine> machines = new LinkedHashMap<>();
    private final Map<String, MachineRequest> asked = new HashMap<>();
    private final Map<String, FirstUse> keys = new HashMap<>();
    /** Machine id to the key of the update under way: a finished update of an older request changes nothing. */
    private final Map<String, String> updating = new HashMap<>();
    private final Set<String> nodeNames = new HashSet<>();
    private final Map<String, Integer> created = new HashMap<>();

    public MachineApiCloud(KubernetesClient client, ScheduledExecutorService executor, Clock clock, RandomGenerator random,
                           Behaviour behaviour, MachineLog log) {
        this(client, executor, clock, random, behaviour, log, pool -> false);
    }

    /**
     * @param headless the pools whose machines never register as nodes (bastions): they run, with
     *                 {@code nodeName} null, and Nightshift stamps their records instead
     */
    public MachineApiCloud(KubernetesClient client, ScheduledExecutorService executor, Clock clock, RandomGenerator random,
                           Behaviour behaviour, MachineLog log, java.util.function.Predicate<String> headless) {
        this(client, executor, clock, random, behaviour, log, headless, Registration.REQUEST_LABELS);
    }

    /** @param registration what its nodes carry when they register: exactly the request's labels, or the pool's label too */
    public MachineApiCloud(KubernetesClient client, ScheduledExecutorService executor, Clock clock, RandomGenerator random,
                           Behaviour behaviour, MachineLog log, java.util.function.Predicate<String> headless,
                           Registration registration) {
        this.headless = headless;
        this.registration = registration;
        this.client = client;
        this.executor = executor;
        this.clock = clock;
        this.random = random;
        this.behaviour = behaviour;
        this.log = log;
    }

    // ---- seeding ----------------------------------------------------------------------------

    /** {@link #seed(String, int, Map, List, Map)} without taints. */
    public List<ApiMachine> seed(String pool, int count, Map<String, String> labels, Map<String, String> annotations) {
        return seed(pool, count, labels, List.of(), annotations);
    }

    /**
     * Puts {@code count} machines that already run into {@code pool}, their nodes ({@code <pool>-1},
     * {@code <pool>-2}, …, skipping names taken by any node of the cluster) registered at once with {@code labels} and
     * {@code taints}; {@code annotations} (the hashes, or none) go on the machine records only.
     */
    public synchronized List<ApiMachine> seed(String pool, int count, Map<String, String> labels, List<MachineRequest.Taint> taints,
                                              Map<String, String> annotations) {
        List<ApiMachine> seeded = new ArrayList<>();
        int n = 0;
        for (int i = 0; i < count; i++) {
            if (headless.test(pool)) {
                ApiMachine machine = new ApiMachine(nextId(pool), pool, null, MachineState.RUNNING, clock.instant(), annotations, null);
                machines.put(machine.id(), machine);
                log.add(clock.instant(), MachineLog.Event.SEEDED, machine.id(), pool, null, null, null, null, null);
                seeded.add(machine);
                continue;
            }
            String node;
            do {
                node = pool + "-" + (++n);
            } while (nodeNames.contains(node) || client.nodes().withName(node).get() != null);
            ApiMachine machine = new ApiMachine(nextId(pool), pool, node, MachineState.RUNNING, clock.instant(), annotations, null);
            nodeNames.add(node);
            machines.put(machine.id(), machine);
            client.nodes().resource(node(node, pool, labels, taints)).create();
            log.add(clock.instant(), MachineLog.Event.SEEDED, machine.id(), pool, node, null, null, null, null);
            seeded.add(machine);
        }
        return seeded;
    }

    // ---- the machine API --------------------------------------------------------------------

    @Override
    public synchronized List<ApiMachine> list(String pool) {
        return machines.values().stream().filter(m -> m.pool().equals(pool)).toList();
    }

    /** Whether a machine is known, in any state. */
    public synchronized Optional<ApiMachine> machine(String id) {
        return Optional.ofNullable(machines.get(id));
    }

    @Override
    public ApiMachine create(String pool, String idempotencyKey, MachineRequest request) {
        return createMachine(pool, idempotencyKey, request).machine();
    }

    /** {@link #create}, telling a new machine from the answer to a key seen before. */
    public synchronized Outcome createMachine(String pool, String idempotencyKey, MachineRequest request) {
        Optional<Outcome> seen = seen(idempotencyKey, "create");
        if (seen.isPresent()) {
            return seen.get();
        }
        ApiMachine machine = launch(pool, idempotencyKey, request, null);
        keys.put(idempotencyKey, new FirstUse("create", machine.id()));
        return new Outcome(machine, false);
    }

    @Override
    public ApiMachine replace(String id, String idempotencyKey, MachineRequest request) {
        return replaceMachine(id, idempotencyKey, request).machine();
    }

    /**
     * {@link #replace}: under one lock, the old machine is {@code deleting} and its replacement
     * {@code creating}. A machine already being deleted is not replaced (409): its replacement would
     * be a machine more than the pool counts.
     */
    public synchronized Outcome replaceMachine(String id, String idempotencyKey, MachineRequest request) {
        Optional<Outcome> seen = seen(idempotencyKey, "replace");
        if (seen.isPresent()) {
            return seen.get();
        }
        ApiMachine old = known(id);
        if (old.state() == MachineState.DELETING) {
            throw new MachineApiException("machine " + id + " is already being deleted; it is not replaced", 409, false);
        }
        ApiMachine replacement = launch(old.pool(), idempotencyKey, request, old.id());
        terminate(old);
        log.add(clock.instant(), MachineLog.Event.REPLACED, old.id(), old.pool(), old.nodeName(), idempotencyKey, null,
                replacement.id(), null);
        keys.put(idempotencyKey, new FirstUse("replace", replacement.id()));
        return new Outcome(replacement, false);
    }

    @Override
    public synchronized boolean delete(String id) {
        ApiMachine machine = machines.get(id);
        if (machine == null) {
            return false;
        }
        if (machine.state() != MachineState.DELETING) {
            terminate(machine);
            log.add(clock.instant(), MachineLog.Event.DELETING, id, machine.pool(), machine.nodeName(), null, null, null, null);
        }
        return true;
    }

    @Override
    public void update(String id, String idempotencyKey, UpdateRequest request) {
        updateMachine(id, idempotencyKey, request);
    }

    /**
     * {@link #update}: a running (or failed) machine is {@code updating}; an in-place update makes
     * its node NotReady until done, a kubelet restart leaves it Ready. Then it is {@code running}
     * with the request's annotations merged into its record, or {@code failed} with a message.
     */
    public synchronized Outcome updateMachine(String id, String idempotencyKey, UpdateRequest request) {
        String operation = request.operation().json();
        Optional<Outcome> seen = seen(idempotencyKey, operation);
        if (seen.isPresent()) {
            return seen.get();
        }
        ApiMachine machine = known(id);
        if (machine.state() != MachineState.RUNNING && machine.state() != MachineState.FAILED) {
            throw new MachineApiException("machine " + id + " is " + machine.state().json() + "; only a running machine is updated",
                    409, false);
        }
        ApiMachine started = machine.withState(MachineState.UPDATING, null);
        machines.put(id, started);
        updating.put(id, idempotencyKey);
        keys.put(idempotencyKey, new FirstUse(operation, id));
        log.add(clock.instant(), MachineLog.Event.UPDATE_STARTED, id, machine.pool(), machine.nodeName(), idempotencyKey, null, null,
                operation);
        boolean inPlace = request.operation() == UpdateRequest.Operation.IN_PLACE_UPDATE;
        if (inPlace) {
            setReady(machine.nodeName(), false);
        }
        boolean fails = random.nextDouble() < behaviour.updateFailure();
        Duration delay = inPlace ? behaviour.updateDelay() : behaviour.restartDelay();
        executor.schedule(() -> finishUpdate(id, idempotencyKey, request, fails), delay.toMillis(), TimeUnit.MILLISECONDS);
        return new Outcome(started, false);
    }

    @Override
    public synchronized ApiMachine patchAnnotations(String id, Map<String, String> annotations) {
        ApiMachine machine = known(id);
        Map<String, String> merged = new TreeMap<>(machine.annotations());
        annotations.forEach((key, value) -> {
            if (value == null) {
                merged.remove(key);
            } else {
                merged.put(key, value);
            }
        });
        ApiMachine patched = machine.withAnnotations(merged);
        machines.put(id, patched);
        log.add(clock.instant(), MachineLog.Event.PATCHED, id, machine.pool(), machine.nodeName(), null, null, null, null);
        return patched;
    }

    // ---- lifecycle ----------------------------------------------------------------------------

    /** The answer to a key seen before, if it was; a key first used for another operation is refused. */
    private Optional<Outcome> seen(String idempotencyKey, String operation) {
        FirstUse first = keys.get(idempotencyKey);
        if (first == null) {
            return Optional.empty();
        }
        if (!first.operation().equals(operation)) {
            throw new MachineApiException("Idempotency-Key " + idempotencyKey + " was first used for a " + first.operation()
                    + " (machine " + first.machine() + "), not a " + operation, 409, false);
        }
        // Keys are forgotten with their machine, so the machine is there.
        return Optional.of(new Outcome(machines.get(first.machine()), true));
    }

    private ApiMachine known(String id) {
        ApiMachine machine = machines.get(id);
        if (machine == null) {
            throw new MachineApiException("no machine " + id, 404, false);
        }
        return machine;
    }

    private String nextId(String pool) {
        return "m-" + pool + "-" + created.merge(pool, 1, Integer::sum);
    }

    /** A new machine, {@code creating}; it registers (or fails) after the create delay. */
    private ApiMachine launch(String pool, String idempotencyKey, MachineRequest request, String replaces) {
        String node = null;
        if (!headless.test(pool)) {
            do {
                node = pool + "-" + Integer.toString(36 * 36 * 36 * 36 + random.nextInt(35 * 36 * 36 * 36 * 36), 36);
            } while (nodeNames.contains(node));
            nodeNames.add(node);
        }
        ApiMachine machine = new ApiMachine(nextId(pool), pool, node, MachineState.CREATING, clock.instant(), request.annotations(), null);
        machines.put(machine.id(), machine);
        asked.put(machine.id(), request);
        log.add(clock.instant(), MachineLog.Event.CREATED, machine.id(), pool, node, idempotencyKey, replaces, null, null);
        LOG.info("machine {} ({}) of pool {} requested{}", machine.id(), node, pool, replaces == null ? "" : " to replace " + replaces);
        boolean fails = random.nextDouble() < behaviour.createFailure();
        executor.schedule(() -> boot(machine.id(), fails), behaviour.createDelay().toMillis(), TimeUnit.MILLISECONDS);
        return machine;
    }

    /**
     * Its node registers, unless it was deleted meanwhile. The node is created outside the cloud's lock: with the API
     * server slow (the scale run's 100,000 pods on two cores), a lock held through the call made every listing, create
     * and delete of every pool wait seconds behind it, some past the agent's 30 s timeout.
     */
    private void boot(String id, boolean fails) {
        ApiMachine machine;
        MachineRequest request;
        synchronized (this) {
            machine = machines.get(id);
            if (machine == null || machine.state() != MachineState.CREATING) {
                return; // deleted before it booted
            }
            if (fails) {
                fail(machine, "the machine did not boot (failure injected by the sandbox's cloud)");
                return;
            }
            request = asked.get(id);
            if (machine.nodeName() == null) {
                // A bastion: it runs, and joins no cluster.
                machines.put(id, machine.withState(MachineState.RUNNING, null));
                log.add(clock.instant(), MachineLog.Event.REGISTERED, id, machine.pool(), null, null, null, null, "runs; never a node");
                return;
            }
        }
        try {
            client.nodes().resource(node(machine.nodeName(), machine.pool(), request.labels(), request.taints())).create();
        } catch (KubernetesClientException e) {
            // Already there: an earlier attempt of this create landed and its answer was lost (the client retries a
            // request that timed out, as it did under the five test JVMs' load). The node's name is this machine's own,
            // so it is this machine's node; a kubelet that finds its Node object registered goes on with it too.
            boolean registered = e.getCode() == 409;
            if (!registered) {
                synchronized (this) {
                    ApiMachine now = machines.get(id);
                    if (now != null && now.state() == MachineState.CREATING) {
                        fail(now, "its node " + machine.nodeName() + " could not register: " + e.getMessage());
                    }
                }
                return;
            }
        }
        synchronized (this) {
            ApiMachine now = machines.get(id);
            if (now != null && now.state() == MachineState.CREATING) {
                machines.put(id, now.withState(MachineState.RUNNING, null));
                log.add(clock.instant(), MachineLog.Event.REGISTERED, id, machine.pool(), machine.nodeName(), null, null, null, null);
                return;
            }
        }
        // Deleted while its node registered: the node goes with it (its deletion may have looked for it before it existed).
        deleteNode(machine.nodeName());
    }

    private synchronized void finishUpdate(String id, String idempotencyKey, UpdateRequest request, boolean fails) {
        ApiMachine machine = machines.get(id);
        if (machine == null || machine.state() != MachineState.UPDATING || !idempotencyKey.equals(updating.get(id))) {
            return; // deleted meanwhile
        }
        updating.remove(id);
        if (request.operation() == UpdateRequest.Operation.IN_PLACE_UPDATE) {
            setReady(machine.nodeName(), true);
        }
        if (fails) {
            fail(machine, request.operation().json() + " to " + request.spec().image().name() + " " + request.spec().image().version()
                    + " failed (failure injected by the sandbox's cloud)");
            return;
        }
        Map<String, String> merged = new TreeMap<>(machine.annotations());
        merged.putAll(request.annotations());
        machines.put(id, machine.withAnnotations(merged).withState(MachineState.RUNNING, null));
        log.add(clock.instant(), MachineLog.Event.UPDATED, id, machine.pool(), machine.nodeName(), idempotencyKey, null, null,
                request.operation().json());
    }

    private void fail(ApiMachine machine, String why) {
        machines.put(machine.id(), machine.withState(MachineState.FAILED, why));
        log.add(clock.instant(), MachineLog.Event.FAILED, machine.id(), machine.pool(), machine.nodeName(), null, null, null, why);
        LOG.info("machine {} of pool {} failed: {}", machine.id(), machine.pool(), why);
    }

    /** {@code deleting} now; its node and the machine are gone after the delete delay. */
    private void terminate(ApiMachine machine) {
        machines.put(machine.id(), machine.withState(MachineState.DELETING, null));
        updating.remove(machine.id());
        executor.schedule(() -> gone(machine.id()), behaviour.deleteDelay().toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Its node is deleted (outside the cloud's lock, as in {@link #boot}), then the machine is gone. */
    private void gone(String id) {
        ApiMachine machine;
        synchronized (this) {
            machine = machines.get(id);
            if (machine == null || machine.state() != MachineState.DELETING) {
                return;
            }
        }
        try {
            if (machine.nodeName() != null) {
                client.nodes().withName(machine.nodeName()).delete();
            }
        } catch (KubernetesClientException e) {
            // Tried again later: the machine stays deleting until its node is gone.
            LOG.warn("cannot delete node {} of machine {}: {}", machine.nodeName(), id, e.getMessage());
            executor.schedule(() -> gone(id), behaviour.deleteDelay().toMillis(), TimeUnit.MILLISECONDS);
            return;
        }
        synchronized (this) {
            // A machine being deleted stays so (no operation takes one back), so this is the one read above.
            if (machines.remove(id) == null) {
                return;
            }
            asked.remove(id);
            nodeNames.remove(machine.nodeName());
            keys.values().removeIf(first -> first.machine().equals(id));
            log.add(clock.instant(), MachineLog.Event.GONE, id, machine.pool(), machine.nodeName(), null, null, null, null);
        }
        LOG.info("machine {} ({}) of pool {} gone", id, machine.nodeName(), machine.pool());
    }

    private void deleteNode(String node) {
        try {
            client.nodes().withName(node).delete();
        } catch (KubernetesClientException e) {
            LOG.warn("cannot delete node {}: {}", node, e.getMessage());
        }
    }

    // ---- nodes --------------------------------------------------------------------------------

    /**
     * What a kubelet registers: the labels and taints it was given, its hostname (and, with
     * {@link Registration#WITH_POOL_LABEL}, its pool), Ready; no annotations.
     */
    private Node node(String name, String pool, Map<String, String> labels, List<MachineRequest.Taint> taints) {
        Map<String, String> all = new TreeMap<>(labels);
        all.put(HOSTNAME, name);
        if (registration == Registration.WITH_POOL_LABEL) {
            all.put(NodeMarks.POOL, pool);
        }
        List<Taint> nodeTaints = taints.stream()
                .map(t -> new TaintBuilder().withKey(t.key()).withValue(t.value()).withEffect(t.effect()).build()).toList();
        return new NodeBuilder()
                .withNewMetadata().withName(name).withLabels(all).endMetadata()
                .withNewSpec().withTaints(nodeTaints).endSpec()
                .withNewStatus().withConditions(readyCondition(true)).endStatus()
                .build();
    }

    private void setReady(String node, boolean ready) {
        if (node == null) {
            return; // a bastion has no node
        }
        try {
            client.nodes().withName(node).edit(n -> {
                n.getStatus().setConditions(new ArrayList<>(List.of(readyCondition(ready))));
                return n;
            });
        } catch (KubernetesClientException e) {
            LOG.warn("cannot set node {} {}: {}", node, ready ? "Ready" : "NotReady", e.getMessage());
        }
    }

    private NodeCondition readyCondition(boolean ready) {
        return new NodeConditionBuilder().withType("Ready").withStatus(ready ? "True" : "False")
                .withReason(ready ? "KubeletReady" : "KubeletNotReady")
                .withLastTransitionTime(clock.instant().toString()).build();
    }
}
