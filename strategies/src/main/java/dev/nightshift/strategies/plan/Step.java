package dev.nightshift.strategies.plan;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.spec.model.Taint;

/**
 * One action for the executor. Steps are idempotent against the cluster: executing one whose
 * effect is already there changes nothing, so a plan can be re-run after a crash. Every step
 * carries the pool it acts in, set by the planner, so nothing maps a step to its pool by the
 * name of its node (which a cloud chooses).
 *
 * <p>Whatever carries steps out (the agent's executor against a cluster, the simulator against its
 * model) is a {@link Handler}: one method per step type, so an interpreter that misses a step type
 * does not compile. Java 17 has no exhaustive pattern switch; {@link #accept} is the double dispatch.
 */
public sealed interface Step {

    /** The node or machine the step acts on; for pool-wide steps the pool. */
    String target();

    /** The pool the step acts in. */
    String pool();

    /** Hands this step to the handler's method for its type. */
    <R> R accept(Handler<R> handler);

    /**
     * An interpreter of steps: one method per step type. Adding a step type adds a method here,
     * and every interpreter stops compiling until it says what the step does.
     */
    interface Handler<R> {
        R stamp(Stamp step);

        R taint(Taint step);

        R untaint(Untaint step);

        R cordon(Cordon step);

        R uncordon(Uncordon step);

        R drain(Drain step);

        R repair(Repair step);

        R forceDeletePod(ForceDeletePod step);

        R deleteMachine(DeleteMachine step);

        R createMachine(CreateMachine step);

        R updateInPlace(UpdateInPlace step);

        R restartKubelet(RestartKubelet step);

        R propagate(Propagate step);

        R labelCandidate(LabelCandidate step);

        R validate(Validate step);
    }

    /** Stamp an unstamped node (adoption) or one stamped by an older hash version (re-stamp): never disrupts it. */
    record Stamp(String target, String pool, StampedHash rollHash, StampedHash kubeletHash, boolean adopted) implements Step {

        @Override
        public <R> R accept(Handler<R> handler) {
            return handler.stamp(this);
        }
    }

    /** Put Nightshift's PreferNoSchedule taint on a node selected for update, so new pods avoid it. */
    record Taint(String target, String pool) implements Step {

        @Override
        public <R> R accept(Handler<R> handler) {
            return handler.taint(this);
        }
    }

    record Untaint(String target, String pool) implements Step {

        @Override
        public <R> R accept(Handler<R> handler) {
            return handler.untaint(this);
        }
    }

    record Cordon(String target, String pool) implements Step {

        @Override
        public <R> R accept(Handler<R> handler) {
            return handler.cordon(this);
        }
    }

    /** Lift Nightshift's cordon and forget its drain or in-place start. */
    record Uncordon(String target, String pool) implements Step {

        @Override
        public <R> R accept(Handler<R> handler) {
            return handler.uncordon(this);
        }
    }

    /** Start or continue draining: evict every pod not owned by a DaemonSet and not a mirror pod. */
    record Drain(String target, String pool) implements Step {

        @Override
        public <R> R accept(Handler<R> handler) {
            return handler.drain(this);
        }
    }

    /**
     * Start repairing a failed node: record an Event on it naming the condition, cordon it and
     * start draining it. The drain then goes on as {@link Drain} steps and ends in a
     * {@link DeleteMachine} that replaces it. The executor starts no repair while the API server's
     * {@code /readyz} fails.
     *
     * @param condition the condition that made it fail ({@code Ready=Unknown}, {@code DiskPressure}…)
     * @param since     when it became unhealthy
     */
    record Repair(String target, String pool, String condition, Instant since) implements Step {

        @Override
        public <R> R accept(Handler<R> handler) {
            return handler.repair(this);
        }
    }

    /** Delete a pod whose eviction a budget kept refusing (onEvictionBlocked: ForceDelete). */
    record ForceDeletePod(String target, String pool, String pod) implements Step {

        @Override
        public <R> R accept(Handler<R> handler) {
            return handler.forceDeletePod(this);
        }
    }

    /**
     * Delete a machine. With {@code replace}, the provider creates a replacement from the pool's
     * desired template in the same call (as terminating an instance of a scaling group without
     * lowering its size), so the pool's size survives a crash between the two.
     */
    record DeleteMachine(String target, String pool, boolean replace, DesiredPool desired) implements Step {

        /** The roll hash a replacement is made with. */
        public StampedHash rollHash() {
            return desired.rollHash();
        }

        /** The kubelet hash a replacement is made with. */
        public StampedHash kubeletHash() {
            return desired.kubeletHash();
        }

        @Override
        public <R> R accept(Handler<R> handler) {
            return handler.deleteMachine(this);
        }
    }

    /**
     * Create a surge machine that takes {@code surgeFor}'s place once it is available; with {@code surgeFor} empty, a
     * machine that brings a pool short of its minimum back to it.
     */
    record CreateMachine(String target, String pool, String surgeFor, DesiredPool desired) implements Step {

        public StampedHash rollHash() {
            return desired.rollHash();
        }

        public StampedHash kubeletHash() {
            return desired.kubeletHash();
        }

        @Override
        public <R> R accept(Handler<R> handler) {
            return handler.createMachine(this);
        }
    }

    /**
     * Apply the desired roll-hash inputs to a drained node in place; it reports the new hash when
     * done. Asked again of a node that finished at a target that has since changed. Idempotent for
     * the same target: the executor records the requested hash and starts nothing while an update
     * to it runs.
     */
    record UpdateInPlace(String target, String pool, DesiredPool desired) implements Step {

        public StampedHash rollHash() {
            return desired.rollHash();
        }

        public StampedHash kubeletHash() {
            return desired.kubeletHash();
        }

        @Override
        public <R> R accept(Handler<R> handler) {
            return handler.updateInPlace(this);
        }
    }

    /**
     * Restart the kubelet with its new configuration or patch version; no cordon, no drain.
     *
     * @param unansweredSince the mark of an earlier request the node has not answered within the
     *                        pool's healthTimeout: the request is made again, replacing exactly that
     *                        mark, so a repeat of this step from a stale view restarts nothing
     */
    record RestartKubelet(String target, String pool, DesiredPool desired, Optional<Instant> unansweredSince) implements Step {

        /** A first request. */
        public RestartKubelet(String target, String pool, DesiredPool desired) {
            this(target, pool, desired, Optional.empty());
        }

        /** The kubelet configuration the node restarts with. */
        public StampedHash kubeletHash() {
            return desired.kubeletHash();
        }

        @Override
        public <R> R accept(Handler<R> handler) {
            return handler.restartKubelet(this);
        }
    }

    /**
     * Set the pool's labels, annotations (control annotations never among them) and taints on a node
     * and remove the ones Nightshift set that are gone; what others set is never touched.
     */
    record Propagate(String target, String pool, Map<String, String> labels, Map<String, String> annotations,
                     List<dev.nightshift.spec.model.Taint> taints) implements Step {

        public Propagate {
            labels = Map.copyOf(labels);
            annotations = Map.copyOf(annotations);
            taints = List.copyOf(taints);
        }

        @Override
        public <R> R accept(Handler<R> handler) {
            return handler.propagate(this);
        }
    }

    /** Mark an outdated node {@code node.nightshift.dev/candidate-for-update=true} for the user to select. */
    record LabelCandidate(String target, String pool) implements Step {

        @Override
        public <R> R accept(Handler<R> handler) {
            return handler.labelCandidate(this);
        }
    }

    /** Check the pool's nodes and the control plane and record the result in the pool's streak. */
    record Validate(String pool) implements Step {

        /** A validation acts on the whole pool. */
        @Override
        public String target() {
            return pool;
        }

        @Override
        public <R> R accept(Handler<R> handler) {
            return handler.validate(this);
        }
    }
}
