package dev.nightshift.sandbox.capi;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.nightshift.sandbox.capi.MachineSetScaling.DeletionOrder;
import dev.nightshift.sandbox.capi.MachineSetScaling.MachineState;
import dev.nightshift.sandbox.capi.OnDeleteRollout.MachineSetReplicas;

/**
 * Replays upstream's golden OnDelete rollout sequences (copied into test resources, see the README there) step by
 * step: every "Result of rollout planner" block gives the MachineSets as the planner saw them and what it decided,
 * every MachineSet controller step the Machines it saw and what it created or deleted. Each step's input is fed to
 * {@link OnDeleteRollout} / {@link MachineSetScaling} and their answer must equal upstream's.
 *
 * <p>In these sequences the MachineDeployment's template never changes, so the up-to-date MachineSet is the last one
 * the sequence ever has; all others are old. Upstream's fake MachineSet controller deletes the lowest-numbered
 * Machine first, which for healthy Machines created in that order is {@link DeletionOrder#OLDEST}.
 */
class OnDeleteGoldenReplayTest {

    private static final String DIRECTORY = "/dev/nightshift/sandbox/capi/ondelete/";
    private static final Pattern SET_LINE = Pattern.compile(
            "^ {4}(ms\\d+): (?:from (\\d+)/(\\d+) to (\\d+)/(\\d+)|(\\d+)/(\\d+)) replicas, .*\\((.*)\\)$");
    private static final Pattern MD_LINE = Pattern.compile("^ {4}md: md: (\\d+)/(\\d+) replicas.*");
    private static final Pattern CREATED = Pattern.compile("^ {6}- MachineSet (ms\\d+) created.*");
    private static final Pattern MS_RECONCILE = Pattern.compile(
            "^\\[MS controller] Iteration \\d+, Reconcile (ms\\d+): (\\d+)/(\\d+) replicas, .*\\((.*)\\)$");
    private static final Pattern MS_SCALED = Pattern.compile(
            "^\\[MS controller] - (ms\\d+) scale (up|down) to \\d+/\\d+ replicas \\((.*) (created|deleted)\\)$");
    private static final Pattern USER_DELETES = Pattern.compile("^\\[User] Iteration \\d+, Deleting machine (m\\d+)$");
    private static final Pattern FINALIZER_REMOVED = Pattern.compile("^\\[M controller] - (m\\d+) finalizer removed$");
    private static final Pattern SET_NAME = Pattern.compile("ms(\\d+)");

    @ParameterizedTest
    @ValueSource(strings = {
            "3 replicas, maxuserunavailable 1.test.log.golden",
            "3 replicas, maxuserunavailable 1, random(0).test.log.golden",
            "6 replicas, maxuserunavailable 2.test.log.golden",
            "6 replicas, maxuserunavailable 2, random(0).test.log.golden",
            "6 replicas, maxuserunavailable 1, scale up to 9.test.log.golden",
            "6 replicas, maxuserunavailable 1, scale up to 9, random(0).test.log.golden",
            "12 replicas, maxuserunavailable 1,  scale down to 6.test.log.golden",
            "12 replicas, maxuserunavailable 1,  scale down to 6, random(0).test.log.golden",
            "6 replicas, maxuserunavailable 1, change spec.test.log.golden",
            "6 replicas, maxuserunavailable 1, change spec, random(0).test.log.golden"})
    void everyPlannerAndMachineSetStepOfUpstreamsSequenceIsReproduced(String golden) throws IOException {
        List<String> lines = read(golden);
        String current = "ms" + lines.stream().flatMap(l -> SET_NAME.matcher(l).results())
                .mapToInt(m -> Integer.parseInt(m.group(1))).max().orElseThrow();
        Set<String> deleting = new HashSet<>();
        int plannerSteps = 0;
        int machineSetSteps = 0;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            Matcher user = USER_DELETES.matcher(line);
            Matcher removed = FINALIZER_REMOVED.matcher(line);
            if (user.matches()) {
                deleting.add(user.group(1));
            } else if (removed.matches()) {
                deleting.remove(removed.group(1));
            } else if (line.equals("[MD controller] - Result of rollout planner")) {
                i = replayPlannerStep(golden, lines, i + 1, current);
                plannerSteps++;
            } else if (MS_RECONCILE.matcher(line).matches()) {
                replayMachineSetStep(golden, line, i + 1 < lines.size() ? lines.get(i + 1) : "", current, deleting);
                machineSetSteps++;
            }
        }
        assertThat(plannerSteps).as("planner steps replayed from %s", golden).isGreaterThanOrEqualTo(3);
        assertThat(machineSetSteps).as("MachineSet steps replayed from %s", golden).isGreaterThanOrEqualTo(3);
    }

    /** Replays the block starting at {@code from}; returns the index of its last line. */
    private static int replayPlannerStep(String golden, List<String> lines, int from, String current) {
        Matcher md = MD_LINE.matcher(lines.get(from));
        assertThat(md.matches()).as("%s line %d: %s", golden, from + 1, lines.get(from)).isTrue();
        int mdReplicas = Integer.parseInt(md.group(2));
        List<MachineSetReplicas> before = new ArrayList<>();
        Map<String, Integer> expected = new LinkedHashMap<>();
        String created = null;
        int i = from + 1;
        for (; i < lines.size() && lines.get(i).startsWith("    "); i++) {
            Matcher set = SET_LINE.matcher(lines.get(i));
            Matcher creation = CREATED.matcher(lines.get(i));
            if (creation.matches()) {
                created = creation.group(1);
            }
            if (!set.matches()) {
                continue;
            }
            String name = set.group(1);
            boolean changed = set.group(2) != null;
            int status = Integer.parseInt(changed ? set.group(2) : set.group(6));
            int specBefore = Integer.parseInt(changed ? set.group(3) : set.group(7));
            int specAfter = Integer.parseInt(changed ? set.group(5) : set.group(7));
            expected.put(name, specAfter);
            before.add(new MachineSetReplicas(name, index(name), specBefore, status, name.equals(current)));
        }
        String createdName = created;
        List<MachineSetReplicas> existing = before.stream().filter(s -> !s.name().equals(createdName)).toList();

        OnDeleteRollout.Plan plan = OnDeleteRollout.plan(mdReplicas, existing, "ms" + (existing.size() + 1));

        String where = golden + " line " + from;
        assertThat(plan.create()).as("%s: a MachineSet is created", where).isEqualTo(created != null);
        assertThat(plan.current()).as("%s: the current MachineSet", where).isEqualTo(current.equals(createdName) || created == null ? current : createdName);
        Map<String, Integer> actual = new LinkedHashMap<>();
        for (MachineSetReplicas set : before) {
            actual.put(set.name(), plan.replicasOf(set.name(), set.specReplicas()));
        }
        assertThat(actual).as("%s: spec.replicas after the planner", where).isEqualTo(expected);
        return i - 1;
    }

    private static void replayMachineSetStep(String golden, String line, String next, String current, Set<String> deleting) {
        Matcher reconcile = MS_RECONCILE.matcher(line);
        assertThat(reconcile.matches()).isTrue();
        String name = reconcile.group(1);
        int spec = Integer.parseInt(reconcile.group(3));
        List<String> machineNames = reconcile.group(4).isEmpty() ? List.of() : Arrays.asList(reconcile.group(4).split(","));
        Instant epoch = Instant.parse("2026-01-01T00:00:00Z");
        List<MachineState> machines = machineNames.stream()
                .map(m -> new MachineState(m, epoch.plusSeconds(index(m)), deleting.contains(m), false, true))
                .toList();

        MachineSetScaling.Decision decision = MachineSetScaling.decide(spec, !name.equals(current), machines,
                DeletionOrder.OLDEST, epoch.plus(Duration.ofDays(1)));

        Matcher scaled = MS_SCALED.matcher(next);
        int created = 0;
        List<String> deleted = List.of();
        if (scaled.matches() && scaled.group(1).equals(name)) {
            List<String> names = Arrays.asList(scaled.group(3).split(","));
            if (scaled.group(4).equals("created")) {
                created = names.size();
            } else {
                deleted = names;
            }
        }
        assertThat(decision.create()).as("%s: %s, Machines created", golden, line).isEqualTo(created);
        assertThat(decision.delete()).as("%s: %s, Machines deleted", golden, line).containsExactlyInAnyOrderElementsOf(deleted);
    }

    @Test
    void aMachineSetWithMoreMachinesThanReplicasDeletesTheMarkedMachineBeforeOlderOnes() {
        Instant now = Instant.parse("2026-01-02T00:00:00Z");
        List<MachineState> machines = List.of(
                new MachineState("md-a-old", now.minusSeconds(3600), false, false, true),
                new MachineState("md-a-new", now.minusSeconds(60), false, true, true));

        assertThat(MachineSetScaling.decide(1, true, machines, DeletionOrder.OLDEST, now).delete()).containsExactly("md-a-new");
    }

    @Test
    void aMachineBeingDeletedCountsAsTheVictimSoNoOtherMachineIsDeleted() {
        Instant now = Instant.parse("2026-01-02T00:00:00Z");
        List<MachineState> machines = List.of(
                new MachineState("a", now.minusSeconds(3600), false, false, true),
                new MachineState("b", now.minusSeconds(60), true, false, true));

        assertThat(MachineSetScaling.decide(1, true, machines, DeletionOrder.RANDOM, now).delete()).isEmpty();
    }

    @Test
    void randomOrderPrefersMachinesWithoutANodeThenGoesByName() {
        Instant now = Instant.parse("2026-01-02T00:00:00Z");
        List<MachineState> machines = List.of(
                new MachineState("a", now, false, false, true),
                new MachineState("c", now, false, false, false),
                new MachineState("b", now, false, false, true));

        assertThat(MachineSetScaling.decide(1, false, machines, DeletionOrder.RANDOM, now).delete()).containsExactly("c", "a");
    }

    @Test
    void loweringReplicasShrinksTheOldestOldMachineSetFirst() {
        OnDeleteRollout.Plan plan = OnDeleteRollout.plan(3, List.of(
                new MachineSetReplicas("md-1", 1, 2, 2, false),
                new MachineSetReplicas("md-2", 2, 2, 2, false),
                new MachineSetReplicas("md-3", 3, 1, 1, true)), "md-4");

        assertThat(plan.replicas()).containsExactly(Map.entry("md-1", 0));
        assertThat(plan.old()).containsExactly("md-1", "md-2");
    }

    private static long index(String name) {
        return Long.parseLong(name.replaceAll("\\D", ""));
    }

    private static List<String> read(String golden) throws IOException {
        try (InputStream in = OnDeleteGoldenReplayTest.class.getResourceAsStream(DIRECTORY + golden)) {
            assertThat(in).as("test resource %s%s", DIRECTORY, golden).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
    }
}
