package dev.nightshift.sandbox;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * One seeded rollout of {@link ProviderCrashModelIT}: the pool's size and limits, whether a second image change comes
 * mid-rollout, whether the machine API loses answers, and the moments at which the agent is killed with SIGKILL. The pool
 * and its limits are drawn first and are the same for both providers of a seed; the moments are drawn after them, for the
 * provider (each provider's world records different things).
 *
 * @param maxSurge       as the spec writes it: a number or a percentage
 * @param maxUnavailable as the spec writes it; never literally zero together with {@code maxSurge} (the spec refuses that)
 * @param secondChange   a second image bump is pushed once a node runs the first one
 * @param lostAnswers    the machine API loses the answer to one create and one replace after acting (http only), so that
 *                       the agent, alive, sends them again
 * @param kills          1 or 2 moments; the agent is started again after each
 */
record CrashDraw(long seed, int maxNodes, Provider provider, int nodes, String maxSurge, String maxUnavailable, boolean secondChange,
                 boolean lostAnswers, List<Moment> kills) {

    /** The providers whose machines outlive the agent process (see {@link ProviderCrashModelIT} on {@code simulated}). */
    enum Provider { CLUSTER_API, HTTP }

    /** A moment the world records, at which the agent is killed; counted from the start of the agent it kills. */
    sealed interface Moment {

        /** The {@code n}th create, replace or delete the machine API received (http). */
        record MachineWrite(int n) implements Moment {
            @Override
            public String toString() {
                return "machine-API write #" + n;
            }
        }

        /**
         * The machine API holds its answer to its {@code n}th create or {@code n}th replace, whichever comes first, the work
         * done (http; the first kill only: the ordinals count from the sandbox's start). The held create's machine is not
         * listed until the answer is sent: the next agent sends the create again.
         */
        record HeldAnswer(int n) implements Moment {
            @Override
            public String toString() {
                return "create or replace #" + n + " done, its answer held";
            }
        }

        /** The {@code n}th Machine to start leaving: replicas lowered, or a Machine being deleted (cluster-api). */
        record MachineLeaving(int n) implements Moment {
            @Override
            public String toString() {
                return "Machine #" + n + " starting to leave";
            }
        }

        /** The {@code n}th raise of the MachineDeployment's replicas: a surge Machine asked for (cluster-api). */
        record ReplicasRaised(int n) implements Moment {
            @Override
            public String toString() {
                return "replicas raise #" + n;
            }
        }

        /** The {@code k}th node whose drain starts ({@code drain-started-at} seen by the test's watch). */
        record Draining(int k) implements Moment {
            @Override
            public String toString() {
                return "drain #" + k + " starting";
            }
        }
    }

    private static final String[] SURGES = {"0", "1", "2", "25%", "50%", "100%"};
    private static final String[] UNAVAILABLE = {"0", "1", "2", "25%", "50%"};

    /** The draw of {@code seed} for {@code provider}, pools of 2 to {@code maxNodes} nodes. */
    static CrashDraw of(long seed, int maxNodes, Provider provider) {
        SplittableRandom random = new SplittableRandom(seed);
        int nodes = 2 + random.nextInt(maxNodes - 1);
        String surge;
        String unavailable;
        switch (random.nextInt(5)) {
            case 0 -> {
                surge = "25%";
                unavailable = "25%";
            }
            case 1 -> {
                // A surge larger than the pool.
                surge = Integer.toString(nodes + 1 + random.nextInt(3));
                unavailable = UNAVAILABLE[random.nextInt(UNAVAILABLE.length)];
            }
            default -> {
                do {
                    surge = SURGES[random.nextInt(SURGES.length)];
                    unavailable = UNAVAILABLE[random.nextInt(UNAVAILABLE.length)];
                } while (surge.equals("0") && unavailable.equals("0"));
            }
        }
        boolean secondChange = random.nextInt(3) == 0;
        boolean lostAnswers = random.nextBoolean();
        int resolvedSurge = resolve(surge, nodes, true);
        List<Moment> kills = new ArrayList<>();
        int count = 1 + random.nextInt(2);
        for (int i = 0; i < count; i++) {
            kills.add(moment(random, provider, nodes, resolvedSurge, i == 0));
        }
        return new CrashDraw(seed, maxNodes, provider, nodes, surge, unavailable, secondChange,
                provider == Provider.HTTP && lostAnswers, List.copyOf(kills));
    }

    /**
     * A moment sure to come for a first kill (every old machine leaves, is drained, and is either replaced or deleted after
     * a surge machine took its place: at least {@code nodes} of each, and creates + replaces at least {@code nodes}); a
     * second kill's counts are small, from the restart, and may find the rollout over (then it is not made, and said).
     */
    private static Moment moment(SplittableRandom random, Provider provider, int nodes, int surge, boolean first) {
        int upTo = first ? nodes : 2;
        if (random.nextInt(3) == 0) {
            return new Moment.Draining(1 + random.nextInt(upTo));
        }
        return switch (provider) {
            case HTTP -> first && random.nextBoolean() ? new Moment.HeldAnswer(1 + random.nextInt((nodes + 1) / 2))
                    : new Moment.MachineWrite(1 + random.nextInt(upTo));
            case CLUSTER_API -> first && surge > 0 && random.nextBoolean() ? new Moment.ReplicasRaised(1)
                    : new Moment.MachineLeaving(1 + random.nextInt(upTo));
        };
    }

    /** The limits resolved as the spec's rule says (percentages of surge up, of unavailable down; both 0 → 1 unavailable). */
    CrashJudge.PoolLimits limits(String pool) {
        int surge = resolve(maxSurge, nodes, true);
        int unavailable = resolve(maxUnavailable, nodes, false);
        return new CrashJudge.PoolLimits(pool, nodes, surge, surge == 0 && unavailable == 0 ? 1 : unavailable);
    }

    private static int resolve(String value, int nodes, boolean roundUp) {
        if (!value.endsWith("%")) {
            return Integer.parseInt(value);
        }
        int percent = Integer.parseInt(value.substring(0, value.length() - 1));
        return roundUp ? (nodes * percent + 99) / 100 : nodes * percent / 100;
    }

    /** The held answer of the first kill, if that is its moment. */
    Optional<Moment.HeldAnswer> held() {
        return kills.get(0) instanceof Moment.HeldAnswer h ? Optional.of(h) : Optional.empty();
    }

    /** Generous, so that only a stall fails: from the push to the end, restarts included. */
    Duration bound() {
        return Duration.ofSeconds(120 + 15L * nodes * (secondChange ? 2 : 1) + 30L * kills.size());
    }

    /** The command that runs this draw alone. */
    String rerun() {
        return "mvn -B -o -pl system-tests -am verify -Dit.test=ProviderCrashModelIT -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false"
                + " -Dnightshift.crashmodel.seed=" + seed + " -Dnightshift.crashmodel.maxNodes=" + maxNodes;
    }

    @Override
    public String toString() {
        return "seed " + seed + " (maxNodes " + maxNodes + ") on " + provider.name().toLowerCase(Locale.ROOT).replace('_', '-')
                + ": " + nodes + " nodes, maxSurge " + maxSurge + ", maxUnavailable " + maxUnavailable
                + (secondChange ? ", a second change mid-rollout" : "") + (lostAnswers ? ", lost answers" : "") + ", SIGKILL at " + kills;
    }
}
