package dev.nightshift.agent.run;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import dev.nightshift.agent.provider.Machine;
import dev.nightshift.agent.provider.ChangeNotifications;
import dev.nightshift.agent.provider.ListingCache;
import dev.nightshift.agent.provider.MachineProvider;
import dev.nightshift.agent.provider.ProviderCapabilities;
import dev.nightshift.agent.provider.Refusals;
import dev.nightshift.agent.provider.RemediationHolds;
import dev.nightshift.agent.provider.Settling;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.strategies.model.DesiredPool;

/**
 * The cloud's side of the record: every machine the agent created on its own (a surge machine, or one
 * to reach the pool's minimum), when, and for which old node it stands in; every call is passed on to
 * the cloud unchanged. The request log shows a machine only once it registers as a node; the canary
 * check must also see the surge machines asked for and not registered yet. (The replacement a
 * deletion brings is not listed: the deleted node is in the request log.)
 */
final class MachineRequests implements MachineProvider, ChangeNotifications, ListingCache, Settling, RemediationHolds, Refusals {

    /**
     * One machine asked for.
     *
     * @param time     when the agent asked, on the same clock as the request log's
     * @param surgeFor the old node a surge machine stands in for; empty for none
     */
    record Request(Instant time, String pool, Optional<String> surgeFor) {
    }

    /** The provider the agent talks to now: a restarted agent with the {@code http} provider gets a new one. */
    private final java.util.function.Supplier<MachineProvider> cloud;
    private final Clock clock;
    private final List<Request> requests = new ArrayList<>();
    /** When a machine asked for was deleted before it registered as a node (it never shows in the request log). */
    private final List<Instant> withdrawn = new ArrayList<>();
    /** The same, of surge machines only: the replay counts surge machines asked for and not registered (RolloutInvariants). */
    private final List<Instant> withdrawnSurge = new ArrayList<>();

    MachineRequests(MachineProvider cloud, Clock clock) {
        this(() -> cloud, clock);
    }

    MachineRequests(java.util.function.Supplier<MachineProvider> cloud, Clock clock) {
        this.cloud = cloud;
        this.clock = clock;
    }

    @Override
    public void start(Runnable onChange) throws Exception {
        new ProviderCapabilities(cloud.get()).start(onChange);
    }

    @Override
    public void refresh() {
        new ProviderCapabilities(cloud.get()).refresh();
    }

    @Override
    public void settle(String pool) {
        new ProviderCapabilities(cloud.get()).settle(pool);
    }

    @Override
    public Optional<String> refusal(String pool) {
        return new ProviderCapabilities(cloud.get()).refusal(pool);
    }

    @Override
    public void nodeUpdating(String pool, String node, boolean updating) {
        new ProviderCapabilities(cloud.get()).nodeUpdating(pool, node, updating);
    }

    @Override
    public void nodeChanged(String pool) {
        new ProviderCapabilities(cloud.get()).nodeChanged(pool);
    }

    @Override
    public void nodeRegistered(String node) {
        new ProviderCapabilities(cloud.get()).nodeRegistered(node);
    }

    @Override
    public void close() {
        new ProviderCapabilities(cloud.get()).close();
    }

    /** When each machine that never registered was deleted, in order. */
    synchronized List<Instant> withdrawn() {
        return List.copyOf(withdrawn);
    }

    /** When each surge machine that never registered was deleted, in order. */
    synchronized List<Instant> withdrawnSurge() {
        return List.copyOf(withdrawnSurge);
    }

    /** A copy of every request so far, in order. */
    synchronized List<Request> requests() {
        return List.copyOf(requests);
    }

    private synchronized void record(String pool, String surgeFor) {
        requests.add(new Request(clock.instant(), pool, Optional.ofNullable(surgeFor).filter(s -> !s.isEmpty())));
    }

    @Override
    public List<Machine> machines(String pool) {
        return cloud.get().machines(pool);
    }

    @Override
    public void create(DesiredPool pool, String surgeFor) {
        record(pool.name(), surgeFor);
        cloud.get().create(pool, surgeFor);
    }

    @Override
    public Deletion delete(DesiredPool pool, String machine, boolean replace) {
        Optional<Machine> unregistered = cloud.get().machines(pool.name()).stream()
                .filter(m -> m.name().equals(machine) && m.node().isEmpty()).findFirst();
        Deletion deletion = cloud.get().delete(pool, machine, replace);
        if (unregistered.isPresent() && deletion.started()) {
            synchronized (this) {
                withdrawn.add(clock.instant());
                if (unregistered.get().surgeFor().isPresent()) {
                    withdrawnSurge.add(clock.instant());
                }
            }
        }
        return deletion;
    }

    @Override
    public void stamp(String pool, String machine, StampedHash rollHash, StampedHash kubeletHash) {
        cloud.get().stamp(pool, machine, rollHash, kubeletHash);
    }
}
