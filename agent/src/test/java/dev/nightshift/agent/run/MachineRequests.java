package dev.nightshift.agent.run;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import dev.nightshift.agent.provider.Machine;
import dev.nightshift.agent.provider.MachineProvider;
import dev.nightshift.spec.hash.StampedHash;

/**
 * The cloud's side of the record: every machine the agent created on its own (a surge machine, or one
 * to reach the pool's minimum), when, and for which old node it stands in; every call is passed on to
 * the cloud unchanged. The request log shows a machine only once it registers as a node; the canary
 * check must also see the surge machines asked for and not registered yet. (The replacement a
 * deletion brings is not listed: the deleted node is in the request log.)
 */
final class MachineRequests implements MachineProvider {

    /**
     * One machine asked for.
     *
     * @param time     when the agent asked, on the same clock as the request log's
     * @param surgeFor the old node a surge machine stands in for; empty for none
     */
    record Request(Instant time, String pool, Optional<String> surgeFor) {
    }

    private final MachineProvider cloud;
    private final Clock clock;
    private final List<Request> requests = new ArrayList<>();

    MachineRequests(MachineProvider cloud, Clock clock) {
        this.cloud = cloud;
        this.clock = clock;
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
        return cloud.machines(pool);
    }

    @Override
    public void create(String pool, String surgeFor, StampedHash rollHash, StampedHash kubeletHash) {
        record(pool, surgeFor);
        cloud.create(pool, surgeFor, rollHash, kubeletHash);
    }

    @Override
    public void delete(String pool, String machine, boolean replace, StampedHash rollHash, StampedHash kubeletHash) {
        cloud.delete(pool, machine, replace, rollHash, kubeletHash);
    }

    @Override
    public void updateInPlace(String machine, StampedHash rollHash, StampedHash kubeletHash) {
        cloud.updateInPlace(machine, rollHash, kubeletHash);
    }

    @Override
    public void stamp(String machine, StampedHash rollHash, StampedHash kubeletHash) {
        cloud.stamp(machine, rollHash, kubeletHash);
    }

    @Override
    public void restartKubelet(String machine, StampedHash kubeletHash) {
        cloud.restartKubelet(machine, kubeletHash);
    }
}
