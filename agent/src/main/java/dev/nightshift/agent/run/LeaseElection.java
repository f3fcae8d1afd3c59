package dev.nightshift.agent.run;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.fence.Fence;
import dev.nightshift.agent.fence.FencingLock;
import dev.nightshift.agent.kube.NonRetryingClient;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfig;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.fabric8.kubernetes.client.http.Interceptor;

/**
 * This replica's part in the election for the agent's Lease: it joins, tells its {@link Listener}
 * when the replica leads, stands by or sees a new leader, joins again after losing the lease, and
 * on {@link #leave()} releases the lease so that a standby takes over at once rather than after
 * the lease expires. What leading means is the listener's business (the {@link Agent}'s reconciler).
 */
public final class LeaseElection implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LeaseElection.class);

    /** What the election tells the agent. */
    public interface Listener {

        /**
         * This replica took the lease. On the elector's thread, which renews the lease only after
         * this returns: keep it short and leave slow work to {@link #tookOver()}.
         */
        void leading();

        /** Right after {@link #leading()}, on the election's own thread: what a new leader does first that may take time. */
        void tookOver();

        /** This replica lost the lease, could not renew it in time, or its election ended. */
        void standingBy();

        /** The lease's holder, this replica or another, as the election last saw it. */
        void leaderChanged(String identity);
    }

    private final AgentConfig.LeaderElection settings;
    private final String namespace;
    private final Listener listener;
    /** Told of every renewal by this replica and of every loss: the agent's writes stop within the renew deadline. */
    private final Fence fence;
    private final Clock clock;
    /** Its own client, without retries and with timeouts within the renew deadline. */
    private final KubernetesClient client;
    /** Runs elections again after a lost lease, and what a new leader does first. */
    private final ScheduledExecutorService elections;
    /** Joining an election and closing exclude each other, so no election starts after close has cancelled the last. */
    private final Object lock = new Object();
    private volatile CompletableFuture<?> running;
    private volatile boolean closing;

    /**
     * @param clientConfig the agent's client configuration
     * @param interceptors added to the election's own client, such as the one counting API errors
     */
    public LeaseElection(AgentConfig.LeaderElection settings, String namespace, Config clientConfig,
                         List<Interceptor> interceptors, Listener listener, Fence fence, Clock clock) {
        this.fence = fence;
        this.clock = clock;
        this.settings = settings;
        this.namespace = namespace;
        this.listener = listener;
        // A leader that cannot renew must find out in time and step down: no client retries, and
        // each request answered or failed within half the renew deadline.
        int timeout = (int) settings.renewDeadline().toMillis() / 2;
        this.client = NonRetryingClient.build(new ConfigBuilder(clientConfig)
                .withConnectionTimeout(timeout).withRequestTimeout(timeout).build(), interceptors);
        this.elections = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "nightshift-election");
            t.setDaemon(true);
            return t;
        });
    }

    /** Joins the election. */
    public void start() {
        elect();
    }

    private void elect() {
        LeaderElectionConfig electionConfig = new LeaderElectionConfigBuilder().withName("nightshift")
                .withLock(new FencingLock(new LeaseLock(namespace, settings.leaseName(), settings.identity()), fence, clock))
                .withLeaseDuration(settings.leaseDuration()).withRenewDeadline(settings.renewDeadline())
                .withRetryPeriod(settings.retryPeriod()).withReleaseOnCancel(true)
                .withLeaderCallbacks(new LeaderCallbacks(() -> {
                    LOG.info("{} leads: reconciling", settings.identity());
                    listener.leading();
                    // Not on this thread: the elector renews the lease only after the callback returns.
                    elections.execute(listener::tookOver);
                }, () -> {
                    LOG.warn("{} stopped leading: standing by", settings.identity());
                    fence.lost();
                    listener.standingBy();
                }, listener::leaderChanged)).build();
        LOG.info("{} joins the election for lease {}/{}", settings.identity(), namespace, settings.leaseName());
        follow(client.leaderElector().withConfig(electionConfig).build().start());
    }

    /**
     * An election ends when this replica loses the lease (or cannot renew it in time): it stands by
     * and, unless closing, joins a new election after a retry period.
     */
    private void follow(CompletableFuture<?> election) {
        this.running = election;
        election.whenComplete((ok, error) -> {
            if (error != null && !(error instanceof CancellationException)) {
                LOG.warn("leader election ended: {}", error.getMessage());
            }
            fence.lost();
            listener.standingBy();
            if (!closing) {
                try {
                    elections.schedule(() -> {
                        synchronized (lock) {
                            if (!closing) {
                                elect();
                            }
                        }
                    }, settings.retryPeriod().toMillis(), TimeUnit.MILLISECONDS);
                } catch (RejectedExecutionException stopping) {
                    // Closing.
                }
            }
        });
    }

    /**
     * Joins no election from now on; the one under way goes on, so that a leader keeps its lease
     * while it finishes what it does (then {@link #leave()}).
     */
    public void stopJoining() {
        synchronized (lock) {
            closing = true;
        }
    }

    /**
     * Cancels the election under way, which releases the lease if this replica holds it, so that a
     * standby takes over at once rather than after the lease expires; joins no other. The release
     * may still be under way on the elector's thread when this returns (just after taking the
     * lease), so the election's client stays open until {@link #close()}.
     */
    public void leave() {
        synchronized (lock) {
            closing = true;
            // Under the lock: an election joined just before closing began is the one cancelled here.
            if (running != null) {
                running.cancel(true);
            }
        }
        elections.shutdownNow();
    }

    /** Leaves the election if it has not, and closes its client. */
    @Override
    public void close() {
        leave();
        client.close();
    }
}
