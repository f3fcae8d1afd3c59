package dev.nightshift.strategies;

import static dev.nightshift.strategies.Fixtures.T0;
import static dev.nightshift.strategies.Fixtures.cluster;
import static dev.nightshift.strategies.Fixtures.current;
import static dev.nightshift.strategies.Fixtures.desired;
import static dev.nightshift.strategies.Fixtures.outdated;
import static dev.nightshift.strategies.Fixtures.pool;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.model.NodeCondition;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.model.PoolStatus;

/**
 * A plan made with a {@link PlanMemo} is the plan made without one, whatever changed in between:
 * nodes changed, arrived, left or moved in the list, nodes of another pool among them, time
 * passing minReadySeconds and timeouts, and the desired state replaced.
 */
class PlanMemoTest {

    private static final String POOL_A = pool("a", "updateStrategy: AutoRollingUpdate\nmaxSurge: 1\nmaxUnavailable: 1\nminReadySeconds: 60");
    private static final String POOL_B = pool("b", "updateStrategy: AutoInPlaceUpdate\nmaxSurge: 0\nmaxUnavailable: 2");

    @Test
    void plansWithTheMemoEqualPlansWithoutItThroughRandomChanges() {
        DesiredCluster first = cluster(POOL_A, POOL_B);
        DesiredCluster second = cluster(POOL_A.replace("1631.0.0", "1632.0.0"), POOL_B);
        RolloutPlanner planner = new RolloutPlanner();
        for (long seed = 1; seed <= 20; seed++) {
            Random random = new Random(seed);
            PlanMemo memo = new PlanMemo();
            DesiredCluster desired = first;
            List<ObservedNode> nodes = new ArrayList<>();
            for (int i = 1; i <= 12; i++) {
                String pool = i % 3 == 0 ? "b" : "a";
                nodes.add(i % 2 == 0 ? current(desired, pool, pool + "-" + i) : outdated(desired, pool, pool + "-" + i));
            }
            Collections.sort(nodes, (x, y) -> x.name().compareTo(y.name()));
            Instant now = T0;
            for (int step = 0; step < 150; step++) {
                ObservedCluster observed = new ObservedCluster(nodes, true, MaintenanceState.OPEN,
                        Map.of("a", PoolStatus.NEW.withValidationStreak(1), "b", PoolStatus.NEW.withValidationStreak(1)));
                RolloutPlanner.Planned with = planner.planWithAccounts(desired, observed, now, memo);
                RolloutPlanner.Planned without = planner.planWithAccounts(desired, observed, now);
                String at = "seed " + seed + " step " + step;
                assertThat(with.plan()).as(at).isEqualTo(without.plan());
                for (String pool : List.of("a", "b")) {
                    assertThat(account(with.accounts().get(pool))).as(at + " pool " + pool)
                            .isEqualTo(account(without.accounts().get(pool)));
                }
                if (step == 75) {
                    desired = second;
                }
                now = now.plusSeconds(random.nextInt(4) * 30L);
                change(nodes, desired, random, now);
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

    private static void change(List<ObservedNode> nodes, DesiredCluster desired, Random random, Instant now) {
        int kind = random.nextInt(8);
        int at = random.nextInt(nodes.size());
        ObservedNode n = nodes.get(at);
        ObservedNode.Builder b = n.toBuilder();
        switch (kind) {
            case 0 -> nodes.set(at, b.cordoned(!n.cordoned()).drainStartedAt(n.draining() ? null : now).build());
            case 1 -> nodes.set(at, b.readySince(n.ready() ? null : now).build());
            case 2 -> nodes.set(at, b.rollHash(desired(desired, n.pool()).rollHash()).updateTainted(random.nextBoolean()).build());
            case 3 -> nodes.set(at, b.conditions(n.conditions().isEmpty()
                    ? List.of(NodeCondition.of("Ready", "False", now.minusSeconds(random.nextInt(3600)))) : List.of()).build());
            case 4 -> {
                if (nodes.size() > 4) {
                    nodes.remove(at);
                }
            }
            case 5 -> {
                String pool = random.nextBoolean() ? "a" : "b";
                ObservedNode added = current(desired, pool, pool + "-new-" + random.nextInt(1000)).toBuilder()
                        .readySince(random.nextBoolean() ? now : null).registered(random.nextBoolean()).createdAt(now)
                        .surgeFor(random.nextBoolean() ? nodes.get(random.nextInt(nodes.size())).name() : null).build();
                if (nodes.stream().noneMatch(x -> x.name().equals(added.name()))) {
                    nodes.add(random.nextInt(nodes.size() + 1), added);
                }
            }
            case 6 -> {
                // Out of name order, or back in it.
                if (at + 1 < nodes.size()) {
                    Collections.swap(nodes, at, at + 1);
                }
            }
            default -> nodes.set(at, b.terminating(!n.terminating()).inPlaceStartedAt(random.nextBoolean() ? now : null).build());
        }
    }
}
