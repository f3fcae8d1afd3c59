package dev.nightshift.strategies;

import static dev.nightshift.strategies.Fixtures.T0;
import static dev.nightshift.strategies.Fixtures.desired;
import static dev.nightshift.strategies.Fixtures.fleet;
import static dev.nightshift.strategies.Fixtures.outdated;
import static dev.nightshift.strategies.Fixtures.pool;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import dev.nightshift.strategies.guard.DisruptionGuard;
import dev.nightshift.strategies.guard.GuardMemo;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.model.NodeCondition;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.plan.Plan;
import dev.nightshift.strategies.plan.PoolReport;
import dev.nightshift.strategies.plan.Step;

/**
 * A fleet planned with a {@link PlanMemo} (its kept decisions and reports of pools waiting or done, its nodes by pool)
 * and guarded with a {@link GuardMemo} gets the plans and the guard's answers it gets without them, at every plan of a
 * seeded rollout: statuses fed back as the agent does, steps carried out, machines coming up, drains and updates
 * finishing after random delays, time passing by less and more than the waiting pools' progress refresh and deadline,
 * windows closing and opening, nodes falling ill, zones, nodes named after their pools or not (pools' nodes interleaved).
 */
class FleetMemoTest {

    private static final List<String> POOLS = List.of(
            pool("cp", "role: control-plane\nmaxSurge: 0\nmaxUnavailable: 1"),
            pool("a", "maxSurge: 1\nmaxUnavailable: 0"),
            pool("b", "maxSurge: 0\nmaxUnavailable: 2\nminReadySeconds: 60"),
            pool("c", "updateStrategy: AutoInPlaceUpdate\nmaxSurge: 0\nmaxUnavailable: 1"),
            pool("d", "maxSurge: 1\nmaxUnavailable: 1\ninterval: 2m\nrollout: {after: [a]}"),
            pool("e", "maxSurge: 0\nmaxUnavailable: 1\nprogressDeadlineSeconds: 300\nrollout: {waves: [1, \"100%\"], soak: 10m}"),
            pool("f", "maxSurge: 1\nmaxUnavailable: 0"),
            pool("g", "drainAndTerminate: false\nmaxSurge: 0\nmaxUnavailable: 1"));

    private final RolloutPlanner planner = new RolloutPlanner();

    @Test
    void plansAndGuardsWithTheMemosEqualThoseWithoutThroughSeededRollouts() {
        for (long seed = 1; seed <= 16; seed++) {
            DesiredCluster desired = fleet("rollout: {concurrency: {pools: " + (1 + seed % 3) + ", maxUnavailableNodes: 3}}",
                    POOLS.toArray(new String[0]));
            new Drive(seed, desired).run(220);
        }

    }

    /** One seeded rollout of the fleet, checked at every plan. */
    private final class Drive {
        private final Random random;
        private final long seed;
        private final DesiredCluster desired;
        private final boolean poolNames;
        private final boolean zones;
        private final Map<String, ObservedNode> nodes = new TreeMap<>();
        private final Map<String, PoolStatus> statuses = new HashMap<>();
        private final PlanMemo memo = new PlanMemo();
        private final GuardMemo guardMemo = new GuardMemo();
        private Instant now = T0;
        private MaintenanceState maintenance = MaintenanceState.OPEN;
        private int created;

        Drive(long seed, DesiredCluster desired) {
            this.seed = seed;
            this.random = new Random(seed);
            this.desired = desired;
            this.poolNames = seed % 2 == 0;
            this.zones = seed % 4 < 2;
            for (DesiredPool p : desired.pools()) {
                statuses.put(p.name(), PoolStatus.NEW);
                for (int i = 1; i <= 3 + random.nextInt(3); i++) {
                    add(outdated(desired, p.name(), name(p.name())));
                }
            }
        }

        private String name(String pool) {
            created++;
            return poolNames ? pool + "-" + created : "n" + (1000 + random.nextInt(9000)) + "-" + created;
        }

        private void add(ObservedNode n) {
            nodes.put(n.name(), n);
        }

        void run(int plans) {
            for (int i = 0; i < plans; i++) {
                ObservedCluster observed = new ObservedCluster(List.copyOf(nodes.values()), true, maintenance, statuses);
                if (zones) {
                    Map<String, String> zoneOf = new HashMap<>();
                    nodes.keySet().forEach(n -> zoneOf.put(n, "z" + Math.floorMod(n.hashCode(), 3)));
                    observed = observed.withZones(zoneOf);
                }
                String at = "seed " + seed + " plan " + i + " at " + now;
                RolloutPlanner.Planned with = planner.planWithAccounts(desired, observed, now, memo);
                RolloutPlanner.Planned without = planner.planWithAccounts(desired, observed, now);
                assertThat(with.plan()).as(at).isEqualTo(without.plan());
                for (DesiredPool p : desired.pools()) {
                    assertThat(account(with.accounts().get(p.name()))).as(at + " pool " + p.name())
                            .isEqualTo(account(without.accounts().get(p.name())));
                }
                Plan plan = without.plan();
                for (PoolReport r : plan.reports().values()) {
                    statuses.put(r.pool(), r.status());
                }
                Set<String> alsoUnavailable = random.nextInt(5) == 0 && !nodes.isEmpty()
                        ? Set.of(new ArrayList<>(nodes.keySet()).get(random.nextInt(nodes.size()))) : Set.of();
                DisruptionGuard guarded = new DisruptionGuard(desired, observed, alsoUnavailable, guardMemo);
                DisruptionGuard plain = new DisruptionGuard(desired, observed, alsoUnavailable);
                assertThat(guarded.clusterMaxUnavailable()).as(at).isEqualTo(plain.clusterMaxUnavailable());
                for (Step step : plan.steps()) {
                    Optional<DisruptionGuard.Refusal> refusal = guarded.admit(step);
                    assertThat(refusal).as(at + " " + step).isEqualTo(plain.admit(step));
                    // Some admitted steps are not carried out (a crash, a lost call): the planner asks again.
                    if (refusal.isEmpty() && random.nextInt(6) > 0) {
                        statuses.computeIfPresent(step.pool(), (k, s) -> ValidationStreak.afterStep(s, step, now));
                        apply(step);
                    }
                }
                advance();
            }
        }

        private void apply(Step step) {
            ObservedNode n = nodes.get(step.target());
            if (step instanceof Step.Validate v) {
                statuses.computeIfPresent(v.pool(), (k, s) -> s.withValidationStreak(s.validationStreak() + 1));
            } else if (step instanceof Step.Stamp s && n != null) {
                add(n.toBuilder().rollHash(s.rollHash()).kubeletHash(s.kubeletHash()).build());
            } else if (step instanceof Step.Taint && n != null) {
                add(n.toBuilder().updateTainted(true).build());
            } else if (step instanceof Step.Untaint && n != null) {
                add(n.toBuilder().updateTainted(false).build());
            } else if ((step instanceof Step.Cordon || step instanceof Step.Repair) && n != null) {
                add(n.toBuilder().cordoned(true).drainStartedAt(step instanceof Step.Repair ? now : n.drainStartedAt().orElse(null)).build());
            } else if (step instanceof Step.Uncordon && n != null) {
                add(n.toBuilder().cordoned(false).drainStartedAt(null).drained(false).inPlaceStartedAt(null).kubeletRestartAt(null).build());
            } else if (step instanceof Step.Drain && n != null && !n.draining()) {
                add(n.toBuilder().drainStartedAt(now).build());
            } else if (step instanceof Step.DeleteMachine d && n != null) {
                nodes.remove(n.name());
                if (d.replace()) {
                    add(fresh(d.pool(), d.desired(), null));
                }
            } else if (step instanceof Step.CreateMachine c) {
                boolean standIn = nodes.values().stream().anyMatch(x -> x.surgeFor().equals(Optional.ofNullable(c.surgeFor())));
                if (!standIn) {
                    add(fresh(c.pool(), c.desired(), c.surgeFor()));
                }
            } else if (step instanceof Step.UpdateInPlace && n != null) {
                add(n.toBuilder().inPlaceStartedAt(now).readySince(null).build());
            } else if (step instanceof Step.RestartKubelet && n != null) {
                add(n.toBuilder().kubeletRestartAt(now).build());
            } else if (step instanceof Step.Propagate p && n != null) {
                add(n.toBuilder().managedLabels(p.labels()).managedTaints(p.taints()).managedAnnotations(p.annotations()).build());
            } else if (step instanceof Step.LabelCandidate && n != null) {
                add(n.toBuilder().candidateForUpdate(true).selectedForUpdate(true).build());
            }
        }

        private ObservedNode fresh(String pool, DesiredPool target, String surgeFor) {
            return ObservedNode.ready(name(pool), pool, now).toBuilder().registered(false).readySince(null).createdAt(now)
                    .rollHash(target.rollHash()).kubeletHash(target.kubeletHash()).surgeFor(surgeFor)
                    .managedLabels(target.labels()).managedTaints(target.spec().pool().taints())
                    .managedAnnotations(target.annotations()).build();
        }

        /** Time passes, work in flight finishes now and then, and once in a while the world changes. */
        private void advance() {
            int[] steps = {0, 0, 5, 30, 45, 59, 61, 90, 120, 299, 301, 600};
            now = now.plusSeconds(steps[random.nextInt(steps.length)]);
            for (ObservedNode n : List.copyOf(nodes.values())) {
                DesiredPool p = desired(desired, n.pool());
                if (n.draining() && !n.drained() && random.nextInt(3) == 0) {
                    add(n.toBuilder().drained(true).build());
                } else if (!n.registered() && random.nextInt(3) == 0) {
                    add(n.toBuilder().registered(true).readySince(now).build());
                } else if (n.inPlaceStartedAt().isPresent() && random.nextInt(3) == 0) {
                    add(n.toBuilder().inPlaceStartedAt(null).rollHash(p.rollHash()).kubeletHash(p.kubeletHash()).readySince(now)
                            .cordoned(false).drainStartedAt(null).drained(false).build());
                } else if (n.kubeletRestartAt().isPresent() && random.nextInt(2) == 0) {
                    add(n.toBuilder().kubeletRestartAt(null).kubeletHash(p.kubeletHash()).build());
                }
            }
            int world = random.nextInt(40);
            if (world == 0) {
                maintenance = maintenance.equals(MaintenanceState.OPEN) ? MaintenanceState.CLOSED : MaintenanceState.OPEN;
            } else if (world == 1 && !nodes.isEmpty()) {
                ObservedNode n = new ArrayList<>(nodes.values()).get(random.nextInt(nodes.size()));
                add(n.toBuilder().conditions(n.conditions().isEmpty()
                        ? List.of(NodeCondition.of("Ready", "False", now.minusSeconds(random.nextInt(3600)))) : List.of()).build());
            } else if (world == 2) {
                String pool = desired.pools().get(random.nextInt(desired.pools().size())).name();
                statuses.computeIfPresent(pool, (k, s) -> s.withPaused(!s.paused()));
            } else if (world == 3) {
                // Another agent's record of the progress clock (a restart, a new leader).
                String pool = desired.pools().get(random.nextInt(desired.pools().size())).name();
                statuses.computeIfPresent(pool, (k, s) -> s.withProgress(s.outdatedNodes(),
                        Optional.of(now.minusSeconds(random.nextInt(600)))));
            }
        }
    }

    private static String account(PoolAccount a) {
        StringBuilder b = new StringBuilder(a.machines() + "/" + a.count() + "/" + a.unavailable() + "/" + a.limits());
        for (int i = 0; i < a.machines(); i++) {
            b.append(' ').append(a.node(i).name()).append(a.available(i) ? "+" : "-").append(a.counted(i) ? "c" : "");
        }
        return b.toString();
    }
}
