package dev.nightshift.strategies.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.BiFunction;

import org.junit.jupiter.api.Test;

import dev.nightshift.spec.model.PoolRole;
import dev.nightshift.strategies.fleet.FleetSchedule.Candidate;
import dev.nightshift.strategies.fleet.FleetSchedule.Outcome;
import dev.nightshift.strategies.fleet.FleetSchedule.Turn;

class FleetScheduleTest {

    private static Candidate node(String name, String... after) {
        return new Candidate(name, PoolRole.NODE, List.of(after), false);
    }

    private static Candidate controlPlane(String name) {
        return new Candidate(name, PoolRole.CONTROL_PLANE, List.of(), false);
    }

    /** Asks every pool in order; {@code outcome} says what its plan found given its turn. */
    private static Map<String, Turn> run(int concurrency, List<Candidate> pools, BiFunction<String, Turn, Outcome> outcome) {
        FleetSchedule schedule = new FleetSchedule(concurrency, pools);
        Map<String, Turn> turns = new LinkedHashMap<>();
        for (String pool : schedule.order()) {
            Turn turn = schedule.turn(pool);
            turns.put(pool, turn);
            Outcome o = outcome.apply(pool, turn);
            schedule.settle(pool, turn, o, o.name());
        }
        return turns;
    }

    /** Every pool has work: it rolls when it has a turn, and waits otherwise. */
    private static Outcome rollsWhenGranted(String pool, Turn turn) {
        return turn.granted() ? Outcome.ACTIVE : Outcome.WAITING;
    }

    private static List<String> granted(Map<String, Turn> turns) {
        return turns.entrySet().stream().filter(e -> e.getValue().granted()).map(Map.Entry::getKey).toList();
    }

    private static FleetWait.Reason why(Map<String, Turn> turns, String pool) {
        return turns.get(pool).waiting().orElseThrow().reason();
    }

    @Test
    void withOnePoolAtATimeTheFirstByNameRollsAndTheOthersWait() {
        Map<String, Turn> turns = run(1, List.of(node("c"), node("a"), node("b")), FleetScheduleTest::rollsWhenGranted);

        assertThat(granted(turns)).containsExactly("a");
        assertThat(why(turns, "b")).isEqualTo(FleetWait.Reason.CONCURRENCY);
        assertThat(turns.get("b").waiting().orElseThrow().detail()).isEqualTo("concurrency: 1 of 1 turns taken (a)");
    }

    @Test
    void twoPoolsOfARoleRollAtOnceWhenConcurrencyAllowsTwo() {
        Map<String, Turn> turns = run(2, List.of(node("a"), node("b"), node("c")), FleetScheduleTest::rollsWhenGranted);

        assertThat(granted(turns)).containsExactly("a", "b");
        assertThat(why(turns, "c")).isEqualTo(FleetWait.Reason.CONCURRENCY);
    }

    @Test
    void nodePoolsWaitForEveryControlPlanePoolWhateverTheConcurrency() {
        Map<String, Turn> turns = run(10, List.of(node("a"), controlPlane("masters-1"), controlPlane("masters-2"), node("b")),
                FleetScheduleTest::rollsWhenGranted);

        assertThat(granted(turns)).containsExactly("masters-1", "masters-2");
        assertThat(why(turns, "a")).isEqualTo(FleetWait.Reason.ROLE_ORDER);
        assertThat(turns.get("a").waiting().orElseThrow().pool()).contains("masters-1");
    }

    @Test
    void nodePoolsStartOnceEveryControlPlanePoolIsCurrent() {
        Map<String, Turn> turns = run(10, List.of(node("a"), controlPlane("masters"), node("b")),
                (pool, turn) -> pool.equals("masters") ? Outcome.DONE : rollsWhenGranted(pool, turn));

        assertThat(granted(turns)).containsExactly("masters", "a", "b");
    }

    @Test
    void aFailedPoolHoldsOnlyItsDependantsAndLaterRoles() {
        List<Candidate> pools = List.of(new Candidate("api", PoolRole.APISERVER, List.of(), false),
                new Candidate("api-b", PoolRole.APISERVER, List.of(), false), node("web"));
        Map<String, Turn> turns = run(5, pools, (pool, turn) -> pool.equals("api") ? Outcome.HELD : rollsWhenGranted(pool, turn));
        assertThat(granted(turns)).containsExactly("api", "api-b");
        assertThat(why(turns, "web")).isEqualTo(FleetWait.Reason.ROLE_ORDER);

        Map<String, Turn> nodes = run(5, List.of(node("db"), node("web", "db"), node("batch"), node("queue", "web")),
                (pool, turn) -> pool.equals("db") ? Outcome.HELD : rollsWhenGranted(pool, turn));
        assertThat(granted(nodes)).containsExactly("batch", "db");
        assertThat(why(nodes, "web")).isEqualTo(FleetWait.Reason.AFTER);
        assertThat(nodes.get("web").waiting().orElseThrow().detail()).isEqualTo("after pool db (HELD): it must be current and healthy first");
        assertThat(why(nodes, "queue")).as("a dependant's dependant waits too").isEqualTo(FleetWait.Reason.AFTER);
    }

    @Test
    void aPoolAfterAnotherStartsOnlyOnceThatOneIsCurrentAndHealthy() {
        List<Candidate> pools = List.of(node("a-web", "z-system"), node("z-system"));

        assertThat(new FleetSchedule(5, pools).order()).containsExactly("z-system", "a-web");
        assertThat(granted(run(5, pools, FleetScheduleTest::rollsWhenGranted))).containsExactly("z-system");
        assertThat(granted(run(5, pools, (pool, turn) -> pool.equals("z-system") ? Outcome.FREE : rollsWhenGranted(pool, turn))))
                .as("current with a failing node is not healthy").containsExactly("z-system");
        assertThat(granted(run(5, pools, (pool, turn) -> pool.equals("z-system") ? Outcome.DONE : rollsWhenGranted(pool, turn))))
                .containsExactly("z-system", "a-web");
    }

    @Test
    void aPoolInProgressKeepsItsTurnAgainstOneEarlierByName() {
        List<Candidate> pools = List.of(node("a"), new Candidate("b", PoolRole.NODE, List.of(), true));

        Map<String, Turn> turns = run(1, pools, FleetScheduleTest::rollsWhenGranted);

        assertThat(granted(turns)).containsExactly("b");
        assertThat(turns.get("a").waiting().orElseThrow().detail()).isEqualTo("concurrency: 1 of 1 turns taken by pools in progress");
    }

    @Test
    void aPoolThatOnlyReportsHoldsNobody() {
        Map<String, Turn> turns = run(1, List.of(node("a"), node("b")),
                (pool, turn) -> pool.equals("a") ? Outcome.FREE : rollsWhenGranted(pool, turn));

        assertThat(granted(turns)).containsExactly("a", "b");
    }

    /**
     * Seeded fleets of random roles, {@code after} edges, pools in progress, concurrency and outcomes: at every
     * draw, roles stay in order, {@code after} holds, no more turns than allowed, a held pool holds nobody else of its
     * role, and with one pool at a time and no {@code after} the turns are exactly those of the order of old.
     */
    @Test
    void propertiesHoldForSeededFleets() {
        for (long seed = 1; seed <= 500; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            int size = 1 + random.nextInt(12);
            List<Candidate> pools = new ArrayList<>();
            for (int i = 0; i < size; i++) {
                PoolRole role = PoolRole.values()[random.nextInt(PoolRole.values().length)];
                List<String> after = new ArrayList<>();
                for (Candidate earlier : pools) {
                    // Only to pools of the same or an earlier role, named before it: no cycle, as the spec ensures.
                    if (earlier.role().compareTo(role) <= 0 && random.nextInt(6) == 0) {
                        after.add(earlier.name());
                    }
                }
                pools.add(new Candidate(String.format("p%02d", i), role, after, random.nextInt(5) == 0));
            }
            int concurrency = 1 + random.nextInt(4);
            // SETTLING (current, machines still coming up) holds later roles, which the order of old did not: drawn
            // only where the old order is not the yardstick.
            boolean old = concurrency == 1 && pools.stream().allMatch(p -> p.after().isEmpty() && !p.inProgress());
            List<Outcome> whenGranted = old ? List.of(Outcome.DONE, Outcome.FREE, Outcome.ACTIVE, Outcome.HELD)
                    : List.of(Outcome.DONE, Outcome.FREE, Outcome.ACTIVE, Outcome.HELD, Outcome.SETTLING);
            Map<String, Outcome> drawn = new LinkedHashMap<>();
            Map<String, Turn> turns = run(concurrency, pools, (pool, turn) -> {
                Outcome o = turn.granted() ? whenGranted.get(random.nextInt(whenGranted.size()))
                        : List.of(Outcome.WAITING, Outcome.DONE, Outcome.FREE, Outcome.HELD).get(random.nextInt(4));
                drawn.put(pool, o);
                return o;
            });
            check(seed, concurrency, pools, turns, drawn);
        }
    }

    private static void check(long seed, int concurrency, List<Candidate> pools, Map<String, Turn> turns, Map<String, Outcome> drawn) {
        Map<String, Candidate> byName = new LinkedHashMap<>();
        pools.forEach(p -> byName.put(p.name(), p));
        List<String> order = new ArrayList<>(turns.keySet());
        for (PoolRole role : PoolRole.values()) {
            int occupying = 0;
            int inProgressGranted = 0;
            for (String pool : order) {
                Candidate c = byName.get(pool);
                if (c.role() != role || !turns.get(pool).granted()) {
                    continue;
                }
                occupying += drawn.get(pool) == Outcome.ACTIVE || drawn.get(pool) == Outcome.HELD ? 1 : 0;
                inProgressGranted += c.inProgress() ? 1 : 0;
            }
            assertThat(occupying).as("seed %d: turns held in role %s", seed, role).isLessThanOrEqualTo(Math.max(concurrency, inProgressGranted));
        }
        for (int i = 0; i < order.size(); i++) {
            String pool = order.get(i);
            Candidate c = byName.get(pool);
            Turn turn = turns.get(pool);
            for (String a : c.after()) {
                assertThat(order.indexOf(a)).as("seed %d: %s after %s in order", seed, pool, a).isLessThan(i);
                if (turn.granted()) {
                    assertThat(drawn.get(a)).as("seed %d: %s started after %s", seed, pool, a).isEqualTo(Outcome.DONE);
                }
            }
            for (int j = 0; j < i; j++) {
                Candidate e = byName.get(order.get(j));
                boolean clear = drawn.get(e.name()) == Outcome.DONE || drawn.get(e.name()) == Outcome.FREE;
                if (e.role().compareTo(c.role()) < 0 && !clear) {
                    assertThat(turn.granted()).as("seed %d: %s started before %s of an earlier role was done", seed, pool, e.name()).isFalse();
                }
            }
            if (!turn.granted()) {
                FleetWait w = turn.waiting().orElseThrow();
                if (w.reason() == FleetWait.Reason.AFTER) {
                    assertThat(c.after()).as("seed %d", seed).contains(w.pool().orElseThrow());
                } else if (w.reason() == FleetWait.Reason.ROLE_ORDER) {
                    assertThat(byName.get(w.pool().orElseThrow()).role()).as("seed %d", seed).isLessThan(c.role());
                } else {
                    assertThat(w.reason()).as("seed %d: a held pool of its own role holds %s only by its turn", seed, pool)
                            .isEqualTo(FleetWait.Reason.CONCURRENCY);
                }
            }
        }
        boolean old = concurrency == 1 && pools.stream().allMatch(p -> p.after().isEmpty() && !p.inProgress());
        if (old) {
            boolean turnTaken = false;
            for (String pool : order) {
                assertThat(turns.get(pool).granted()).as("seed %d: %s as before fleets", seed, pool).isEqualTo(!turnTaken);
                Outcome o = drawn.get(pool);
                turnTaken |= o == Outcome.ACTIVE || o == Outcome.HELD || o == Outcome.WAITING;
            }
        }
    }
}
