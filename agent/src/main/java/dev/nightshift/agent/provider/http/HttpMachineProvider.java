package dev.nightshift.agent.provider.http;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.provider.Machine;
import dev.nightshift.agent.provider.MachineProvider;
import dev.nightshift.agent.provider.ListingCache;
import dev.nightshift.agent.provider.ChangeNotifications;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.strategies.model.DesiredPool;

/**
 * Provider {@code http}: machines come from a cloud adapter that serves the machine API
 * ({@link MachineApi}). The adapter keeps the machines; the agent keeps nothing it could not read
 * again, so a crashed agent lists the pool and goes on.
 *
 * <p>A pool is listed at most once per reconcile ({@link #refresh} starts one) and the answers to
 * this reconcile's writes are folded into that listing. While a pool has machines that change on
 * their own (creating, updating, deleting), a reconcile is asked for at least every
 * {@link #POLL}: the API has no watch.
 *
 * <p>A listing in which every machine is {@code running} is used again by later reconciles until
 * one of the pool's nodes changes in a way that matters ({@link #nodeChanged}: a condition, a
 * label, a taint, a deletion — what a machine failing or deleted outside the agent shows), a node
 * registers that the listing names or may not know yet ({@link #nodeRegistered}), or it is
 * {@link #RELIST} old. In a cluster of 200 quiet pools a reconcile then lists nothing, where it
 * listed 200 times; a pool being rolled has machines creating or deleting, or nodes changing, and
 * is listed at every reconcile as before. A machine an adapter adds to a quiet pool on its own is
 * seen within {@link #RELIST}.
 *
 * <p>A machine's {@code annotations} are the hashes it was created (or updated, or stamped) with
 * and its surge partner; the agent copies them onto its node when the node registers
 * ({@link dev.nightshift.agent.kube.StepExecutor#settle}). A node an adapter registers already
 * labelled with its pool gets no such copy: the observer reads its hashes and partner from this
 * record ({@link dev.nightshift.agent.kube.ClusterObserver}), which is the truth for any node a
 * machine names.
 */
public final class HttpMachineProvider implements MachineProvider, ChangeNotifications, ListingCache {

    private static final Logger LOG = LoggerFactory.getLogger(HttpMachineProvider.class);

    /** The longest the agent goes without listing a pool whose machines are changing. */
    public static final Duration POLL = Duration.ofSeconds(30);
    /** The longest a listing of a pool whose machines are all running, and whose nodes did not change, is used. */
    public static final Duration RELIST = Duration.ofMinutes(5);

    private final MachineApi api;
    private final Duration poll;
    private final Clock clock;
    /** The listing of each pool this reconcile reads, with the answers of its writes folded in. */
    private final Map<String, Listing> listed = new ConcurrentHashMap<>();
    /** Pools whose nodes changed since the last {@link #refresh}. */
    private final Set<String> nodesChanged = ConcurrentHashMap.newKeySet();
    /** Nodes of no pool that registered since the last {@link #refresh}. */
    private final Set<String> registered = ConcurrentHashMap.newKeySet();
    private ScheduledExecutorService poller;

    public HttpMachineProvider(MachineApi api) {
        this(api, POLL);
    }

    /** @param poll how often to ask for a reconcile while machines change on their own ({@link #POLL} in production) */
    public HttpMachineProvider(MachineApi api, Duration poll) {
        this(api, poll, Clock.systemUTC());
    }

    public HttpMachineProvider(MachineApi api, Duration poll, Clock clock) {
        this.api = api;
        this.poll = poll;
        this.clock = clock;
    }

    /** One listing of a pool: its machines (with this agent's later answers folded in) and when it was asked for. */
    private record Listing(List<ApiMachine> machines, Instant listedAt) {

        /** No machine changes on its own: nothing the API could say differently until something else changes. */
        boolean settled() {
            return machines.stream().allMatch(m -> m.state() == MachineState.RUNNING);
        }

        /** The node may be one of these machines': the listing names it, or has a machine whose node is not known yet. */
        boolean mayHold(Set<String> nodes) {
            return machines.stream().anyMatch(m -> m.nodeName() == null || nodes.contains(m.nodeName()));
        }
    }

    @Override
    public void start(Runnable onChange) {
        poller = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "machine-api-poll");
            t.setDaemon(true);
            return t;
        });
        poller.scheduleWithFixedDelay(() -> {
            boolean changing = listed.values().stream().flatMap(l -> l.machines().stream()).anyMatch(m -> m.state().transitional());
            if (changing) {
                onChange.run();
            }
        }, poll.toMillis(), poll.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        if (poller != null) {
            poller.shutdownNow();
        }
    }

    @Override
    public void refresh() {
        Instant now = clock.instant();
        Set<String> arrived = Set.copyOf(registered);
        registered.removeAll(arrived);
        for (Map.Entry<String, Listing> e : List.copyOf(listed.entrySet())) {
            boolean changed = nodesChanged.remove(e.getKey());
            Listing l = e.getValue();
            if (changed || !l.settled() || (!arrived.isEmpty() && l.mayHold(arrived)) || !now.isBefore(l.listedAt().plus(RELIST))) {
                listed.remove(e.getKey());
            }
        }
    }

    @Override
    public void nodeChanged(String pool) {
        nodesChanged.add(pool);
    }

    @Override
    public void nodeRegistered(String node) {
        registered.add(node);
    }

    /** Listings sent at once by {@link #listAhead}: up to 8 threads, gone after 30 s idle. */
    private static final ThreadPoolExecutor LISTERS = listers();

    private static ThreadPoolExecutor listers() {
        java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(8, 8, 30, TimeUnit.SECONDS, new java.util.concurrent.LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "machine-api-list-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /**
     * The pools this pass may not use the last listing of, listed at once (8 at a time): a pass of ten pools rolling waits
     * for about one listing, not ten. Each listing is kept as {@link #listing} would keep it; a failed one is not, and the
     * pool's own read lists it again and reports the failure.
     */
    @Override
    public void listAhead(java.util.Collection<String> pools) {
        List<String> due = pools.stream().filter(p -> !listed.containsKey(p)).distinct().toList();
        if (due.size() <= 1) {
            return;
        }
        List<java.util.concurrent.CompletableFuture<Void>> listing = due.stream().map(p -> java.util.concurrent.CompletableFuture.runAsync(() -> {
            Instant at = clock.instant();
            List<ApiMachine> machines = List.copyOf(api.list(p));
            listed.putIfAbsent(p, new Listing(machines, at));
        }, LISTERS)).toList();
        for (java.util.concurrent.CompletableFuture<Void> l : listing) {
            try {
                l.join();
            } catch (java.util.concurrent.CompletionException e) {
                // Read again by the pool's own read, which reports it.
            }
        }
    }

    /** The pool's machines as the API last reported them, listed now if this reconcile may not use the last listing. */
    public List<ApiMachine> listing(String pool) {
        return listed.computeIfAbsent(pool, p -> new Listing(List.copyOf(api.list(p)), clock.instant())).machines();
    }

    @Override
    public List<Machine> machines(String pool) {
        return listing(pool).stream().map(HttpMachineProvider::machine).toList();
    }

    /**
     * A failed machine whose node never registered counts as one whose creation timed out long ago:
     * the planner deletes it at once and asks for another (its {@code nodeName} may be known all the
     * same, so only the cluster can tell). One whose node registered is unavailable, and its node's
     * own creation time is what the planner reads.
     */
    private static Machine machine(ApiMachine m) {
        boolean failed = m.state() == MachineState.FAILED;
        Instant createdAt = failed ? Instant.EPOCH : m.createdAt();
        return new Machine(m.id(), m.pool(), createdAt, NodeMarks.rollHash(m.annotations()).orElse(null),
                NodeMarks.kubeletHash(m.annotations()).orElse(null), Optional.ofNullable(m.annotations().get(NodeMarks.SURGE_FOR)),
                m.state() == MachineState.RUNNING || m.state() == MachineState.UPDATING, m.node(),
                m.state() == MachineState.DELETING, failed, 0);
    }

    @Override
    public void create(DesiredPool pool, String surgeFor) {
        Optional<String> partner = Optional.ofNullable(surgeFor).filter(s -> !s.isEmpty());
        String key = IdempotencyKeys.of(pool.name(), "create", partner.map(p -> "surge-for:" + p).orElseGet(() -> plainCreate(pool.name())),
                pool.rollHash().toString());
        ApiMachine made = api.create(pool.name(), key, MachineRequests.create(pool, partner));
        fold(pool.name(), made);
        LOG.info("machine {} of pool {} asked for{}", made.id(), pool.name(), partner.map(p -> " to stand in for " + p).orElse(""));
    }

    /**
     * What tells apart the creates of one pool at one target that stand in for no one: the
     * machines the pool has when it is asked. A create repeated after a crash is not a risk here
     * (the new agent lists the machine the first one made and asks for one fewer); two creates in
     * one reconcile are told apart because the first one's machine joins the listing.
     */
    private String plainCreate(String pool) {
        return "after:" + String.join(",", new TreeSet<>(listing(pool).stream().map(ApiMachine::id).toList()));
    }

    @Override
    public Deletion delete(DesiredPool pool, String machine, boolean replace) {
        Optional<ApiMachine> found = find(pool.name(), machine);
        if (found.isEmpty()) {
            return Deletion.started("machine " + machine + " is already gone");
        }
        ApiMachine m = found.get();
        if (m.state() == MachineState.DELETING) {
            // Already going (a replacement asked for, or a deletion): asking again would make one machine more.
            return Deletion.started("machine " + m.id() + " is being deleted");
        }
        if (replace) {
            ApiMachine replacement = api.replace(m.id(), IdempotencyKeys.of(pool.name(), "replace", m.id(), pool.rollHash().toString()),
                    MachineRequests.create(pool, Optional.empty()));
            fold(pool.name(), m.withState(MachineState.DELETING, null));
            fold(pool.name(), replacement);
            LOG.info("machine {} of pool {} replaced by {}", m.id(), pool.name(), replacement.id());
            return Deletion.started("replaced machine " + m.id() + " by " + replacement.id());
        }
        boolean started = api.delete(m.id());
        fold(pool.name(), m.withState(MachineState.DELETING, null));
        LOG.info("machine {} of pool {} {}", m.id(), pool.name(), started ? "deleted" : "was already gone");
        return Deletion.started(started ? "deleted machine " + m.id() : "machine " + m.id() + " was already gone");
    }

    @Override
    public void stamp(String pool, String machine, StampedHash rollHash, StampedHash kubeletHash) {
        find(pool, machine).ifPresent(m -> fold(pool, api.patchAnnotations(m.id(), NodeMarks.hashes(rollHash, kubeletHash))));
    }

    /** The machine by its node's name or its id. */
    Optional<ApiMachine> find(String pool, String machine) {
        return listing(pool).stream().filter(m -> machine.equals(m.nodeName()) || machine.equals(m.id())).findFirst();
    }

    /** An answer joins this reconcile's listing, replacing what it said of the same machine. */
    void fold(String pool, ApiMachine answer) {
        listing(pool);
        listed.compute(pool, (p, l) -> {
            List<ApiMachine> next = new ArrayList<>(l == null ? List.of() : l.machines());
            next.removeIf(m -> m.id().equals(answer.id()));
            next.add(answer);
            return new Listing(List.copyOf(next), l == null ? clock.instant() : l.listedAt());
        });
    }
}
