package dev.nightshift.sandbox.embedded;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;

/**
 * How the embedded controller doubles (Cluster API's, the Job controller's) run, as controllers
 * do: every watch event and a slow resync ask for one reconcile pass; passes run one at a time on
 * the given executor, and asking while one is queued asks nothing more. A pass that meets a
 * conflict or a refusal (the world moved under it) is run again soon; one that fails otherwise,
 * at the next resync.
 */
public final class ControllerLoop {

    private final String name;
    private final Logger log;
    private final ScheduledExecutorService executor;
    private final Duration resync;
    private final Runnable pass;
    private final AtomicBoolean passQueued = new AtomicBoolean();
    private final Object passLock = new Object();
    private volatile boolean closed;
    private ScheduledFuture<?> resyncs;

    /**
     * @param name what the logs call the double
     * @param pass one reconcile pass: reads what it needs and writes what it decides
     */
    public ControllerLoop(String name, Logger log, ScheduledExecutorService executor, Duration resync, Runnable pass) {
        this.name = name;
        this.log = log;
        this.executor = executor;
        this.resync = resync;
        this.pass = pass;
    }

    /** Asks for a pass on every add, update and delete the informer sees. */
    public <T extends HasMetadata> ResourceEventHandler<T> trigger() {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T obj) {
                passSoon();
            }

            @Override
            public void onUpdate(T oldObj, T newObj) {
                passSoon();
            }

            @Override
            public void onDelete(T obj, boolean deletedFinalStateUnknown) {
                passSoon();
            }
        };
    }

    /** Starts the resync and the first pass. */
    public void start() {
        long period = resync.toMillis();
        resyncs = executor.scheduleWithFixedDelay(this::passSoon, period, period, TimeUnit.MILLISECONDS);
        passSoon();
    }

    /** Queues one pass now unless one is already queued. */
    public void passSoon() {
        if (!closed && passQueued.compareAndSet(false, true)) {
            executor.execute(this::run);
        }
    }

    /** Asks for a pass after {@code delay} (a timer of the double: a node that joins, a deletion that ends). */
    public void passIn(Duration delay) {
        if (!closed) {
            executor.schedule(this::passSoon, Math.max(delay.toMillis(), 1), TimeUnit.MILLISECONDS);
        }
    }

    /** Runs {@code change} between passes (a fault injected from another thread). */
    public void betweenPasses(Runnable change) {
        synchronized (passLock) {
            change.run();
        }
    }

    /**
     * Stops asking for passes, waits for the pass under way, then runs {@code stop} (closing the
     * informers and the client: no write of the double is still producing watch events by then).
     */
    public void close(Runnable stop) {
        closed = true;
        if (resyncs != null) {
            resyncs.cancel(false);
        }
        synchronized (passLock) {
            stop.run();
        }
    }

    private void run() {
        passQueued.set(false);
        synchronized (passLock) {
            if (closed) {
                return;
            }
            try {
                pass.run();
            } catch (KubernetesClientException e) {
                log.debug("{}: pass interrupted by {}, retrying", name, e.getMessage());
                passIn(Duration.ofMillis(50));
            } catch (RuntimeException e) {
                log.warn("{}: pass failed, retrying", name, e);
                passIn(resync);
            }
        }
    }
}
