package dev.nightshift.agent.kube;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where drain passes run: off the reconcile's thread, so that no reconcile waits on a drain. A pass (the drain's mark,
 * the node's evictions, the refusals written back on the node) takes the time of its slowest eviction, up to the
 * eviction timeout; ten pools rolling at once put a hundred nodes in drain, and a reconcile that ran their passes one
 * after another took minutes. The reconcile now hands a pass over and goes on; what the pass did comes back with
 * {@link #finished()} and is reported by the next reconcile, which plans from what the pass left on the cluster.
 *
 * <p>At most one pass per node runs at a time: a drain asked for a node whose pass is still running starts nothing (the
 * planner asks again at a later reconcile), and the executor's other steps that change a drained node (its deletion,
 * in-place update, uncordon, a force-deleted pod) wait for the pass too ({@link #running}). Passes of different nodes
 * run at once on {@code threads} threads, each with its own evictions in flight ({@link ConcurrentEvictions}).
 *
 * <p>{@link #inCaller()} runs each pass in the caller and hands its outcome straight back: for callers that run one
 * step and read what it did (tests of the executor). {@link #on(Executor)} runs them where a test says, e.g. only when
 * it says so.
 */
public final class DrainPasses implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DrainPasses.class);
    /** Nodes whose passes run at once in the agent: with 8 evictions each, 32 in flight at most. */
    public static final int DEFAULT_THREADS = 4;

    /** Where passes run; empty: in the caller. */
    private final Optional<Executor> threads;
    private final Set<String> running = ConcurrentHashMap.newKeySet();
    private final Queue<StepExecutor.Outcome> finished = new ConcurrentLinkedQueue<>();

    private DrainPasses(Optional<Executor> threads) {
        this.threads = threads;
    }

    /** Passes on {@code count} daemon threads of their own ({@code nightshift-drain-N}). */
    public static DrainPasses onThreads(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("drain passes need at least one thread, got " + count);
        }
        AtomicInteger n = new AtomicInteger();
        return new DrainPasses(Optional.of(Executors.newFixedThreadPool(count, r -> {
            Thread t = new Thread(r, "nightshift-drain-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        })));
    }

    /** Each pass in the caller, its outcome returned by {@link #start}. */
    public static DrainPasses inCaller() {
        return new DrainPasses(Optional.empty());
    }

    /** Each pass where {@code executor} runs it, its outcome from {@link #finished()}; closing shuts an {@link ExecutorService} down. */
    public static DrainPasses on(Executor executor) {
        return new DrainPasses(Optional.of(executor));
    }

    /**
     * Starts {@code node}'s pass unless one is running. On threads the outcome comes later from {@link #finished()} and
     * this returns empty; in the caller, it returns the pass's outcome. A pass that fails is logged and forgotten: the
     * planner asks for the drain again.
     */
    public Optional<StepExecutor.Outcome> start(String node, Supplier<Optional<StepExecutor.Outcome>> pass) {
        if (!running.add(node)) {
            return Optional.empty();
        }
        if (threads.isEmpty()) {
            try {
                return pass.get();
            } finally {
                running.remove(node);
            }
        }
        try {
            threads.get().execute(() -> {
                try {
                    pass.get().ifPresent(finished::add);
                } catch (RuntimeException e) {
                    LOG.warn("drain pass of {} failed; it is asked again at a later reconcile: {}", node, e.toString());
                } finally {
                    running.remove(node);
                }
            });
        } catch (RejectedExecutionException closing) {
            running.remove(node);
        }
        return Optional.empty();
    }

    /** Whether {@code node}'s pass is running now. */
    public boolean running(String node) {
        return running.contains(node);
    }

    /** The outcomes of the passes finished since the last call, in the order they finished. */
    public List<StepExecutor.Outcome> finished() {
        List<StepExecutor.Outcome> done = new ArrayList<>();
        for (StepExecutor.Outcome o; (o = finished.poll()) != null; ) {
            done.add(o);
        }
        return done;
    }

    /** Passes running finish (each within its evictions' timeout); none starts from now on. */
    @Override
    public void close() {
        threads.filter(ExecutorService.class::isInstance).map(ExecutorService.class::cast).ifPresent(t -> {
            t.shutdown();
            try {
                if (!t.awaitTermination(40, TimeUnit.SECONDS)) {
                    t.shutdownNow();
                }
            } catch (InterruptedException e) {
                t.shutdownNow();
                Thread.currentThread().interrupt();
            }
        });
    }
}
