package dev.nightshift.sandbox.jobs;

import java.time.Duration;
import java.util.Objects;

/**
 * How the Job controller double and the nodes behind it behave: their delays, the scales applied to a Job's own
 * durations, and the seeded fault rates.
 *
 * @param podStartDelay      from a pod's binding to a node to its container running (image pull, start)
 * @param runTime            from the container running to the updater's effect on the node (or its exit)
 * @param rebootTime         how long a node is NotReady while it reboots for an in-place update
 * @param kubeletRestartBlip how long a node is NotReady while its kubelet restarts; zero for none (a kubelet restart
 *                           is quicker than the node lifecycle controller's grace period, so usually nobody sees it)
 * @param podBackoff         the Job controller's delay before replacing a failed pod, doubled for each further failure
 *                           up to 36 times itself (Kubernetes: 10 s, capped at 6 min)
 * @param resync             the slow periodic pass, besides the one after every watch event
 * @param ttlScale           {@code ttlSecondsAfterFinished} is multiplied by this, so that tests see expiry quickly
 * @param deadlineScale      {@code activeDeadlineSeconds} is multiplied by this
 * @param failureRate        the share of Job pods, drawn from the seeded random generator, whose updater exits 1
 * @param neverFinishRate    the share of Job pods that run forever
 * @param noEffectRate       the share of Job pods that exit 0 without changing the node
 */
public record Behaviour(Duration podStartDelay, Duration runTime, Duration rebootTime, Duration kubeletRestartBlip,
        Duration podBackoff, Duration resync, double ttlScale, double deadlineScale, double failureRate,
        double neverFinishRate, double noEffectRate) {

    public Behaviour {
        nonNegative("podStartDelay", podStartDelay);
        nonNegative("runTime", runTime);
        nonNegative("rebootTime", rebootTime);
        nonNegative("kubeletRestartBlip", kubeletRestartBlip);
        nonNegative("podBackoff", podBackoff);
        nonNegative("resync", resync);
        if (resync.isZero()) {
            throw new IllegalArgumentException("resync must be positive, not " + resync);
        }
        if (!(ttlScale > 0) || !(deadlineScale > 0)) {
            throw new IllegalArgumentException("ttlScale and deadlineScale must be positive, not " + ttlScale + " and " + deadlineScale);
        }
        for (double rate : new double[] {failureRate, neverFinishRate, noEffectRate}) {
            if (!(rate >= 0 && rate <= 1)) {
                throw new IllegalArgumentException("fault rates are shares between 0 and 1, not " + rate);
            }
        }
    }

    private static void nonNegative(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isNegative()) {
            throw new IllegalArgumentException(name + " must not be negative, not " + value);
        }
    }

    /** Quick and faultless, for tests: pods run after 100 ms, updaters take 300 ms, a reboot 500 ms; Job durations unscaled. */
    public static Behaviour fast() {
        return new Behaviour(Duration.ofMillis(100), Duration.ofMillis(300), Duration.ofMillis(500), Duration.ZERO,
                Duration.ofMillis(100), Duration.ofSeconds(2), 1, 1, 0, 0, 0);
    }

    /** Paced for people watching {@code nightshift demo}: pods run after 1 s, updaters take 3 s, a reboot 4 s. */
    public static Behaviour demo() {
        return new Behaviour(Duration.ofSeconds(1), Duration.ofSeconds(3), Duration.ofSeconds(4), Duration.ZERO,
                Duration.ofSeconds(2), Duration.ofSeconds(10), 1, 1, 0, 0, 0);
    }

    public Behaviour withKubeletRestartBlip(Duration blip) {
        return new Behaviour(podStartDelay, runTime, rebootTime, blip, podBackoff, resync, ttlScale, deadlineScale,
                failureRate, neverFinishRate, noEffectRate);
    }

    public Behaviour withTtlScale(double scale) {
        return new Behaviour(podStartDelay, runTime, rebootTime, kubeletRestartBlip, podBackoff, resync, scale, deadlineScale,
                failureRate, neverFinishRate, noEffectRate);
    }

    public Behaviour withDeadlineScale(double scale) {
        return new Behaviour(podStartDelay, runTime, rebootTime, kubeletRestartBlip, podBackoff, resync, ttlScale, scale,
                failureRate, neverFinishRate, noEffectRate);
    }

    public Behaviour withFailureRate(double rate) {
        return new Behaviour(podStartDelay, runTime, rebootTime, kubeletRestartBlip, podBackoff, resync, ttlScale, deadlineScale,
                rate, neverFinishRate, noEffectRate);
    }

    public Behaviour withNeverFinishRate(double rate) {
        return new Behaviour(podStartDelay, runTime, rebootTime, kubeletRestartBlip, podBackoff, resync, ttlScale, deadlineScale,
                failureRate, rate, noEffectRate);
    }

    public Behaviour withNoEffectRate(double rate) {
        return new Behaviour(podStartDelay, runTime, rebootTime, kubeletRestartBlip, podBackoff, resync, ttlScale, deadlineScale,
                failureRate, neverFinishRate, rate);
    }
}
