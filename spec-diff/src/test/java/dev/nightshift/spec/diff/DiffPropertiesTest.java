package dev.nightshift.spec.diff;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.nightshift.spec.hash.RandomSpecs;
import dev.nightshift.spec.hash.RandomSpecs.Change;
import dev.nightshift.spec.hash.RandomSpecs.OtherField;
import dev.nightshift.spec.hash.RandomSpecs.RollInput;
import dev.nightshift.spec.hash.RandomSpecs.Spec;
import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.spec.model.ImageVersion;
import dev.nightshift.spec.model.KubernetesVersion;
import dev.nightshift.spec.model.MachineImage;
import dev.nightshift.spec.model.ResolvedPool;
import dev.nightshift.spec.model.SpecSet;

/**
 * Properties of the decisions over {@value #SEEDS} random specs, each changed in one field
 * (seeded: the seed in a failure message reproduces it with {@code RandomSpecs.generate(seed)}).
 */
class DiffPropertiesTest {

    static final int SEEDS = 500;

    record Case<K>(long seed, K kind, Change change, ResolvedPool before, ResolvedPool after, PoolDecision decision) {
        String describe() {
            return "seed " + seed + " " + kind + " (" + change + "): " + decision.action() + " " + decision.reasons();
        }
    }

    private static final List<Case<RollInput>> ROLL_CASES = new ArrayList<>();
    private static final List<Case<OtherField>> OTHER_CASES = new ArrayList<>();
    private static final List<String> LOAD_FAILURES = new ArrayList<>();

    @BeforeAll
    static void sample() {
        RollInput[] inputs = RollInput.values();
        OtherField[] fields = OtherField.values();
        for (long seed = 0; seed < SEEDS; seed++) {
            Spec spec = RandomSpecs.generate(seed);
            SpecSet before = load(spec.files(), "seed " + seed);
            if (before == null) {
                continue;
            }
            // Kinds rotate with the seed, offset from HashPropertiesTest's, so both see every kind on different specs.
            RollInput input = inputs[(int) ((seed + 7) % inputs.length)];
            Spec rolled = spec.copy();
            Change rollChange = rolled.change(input, new Random(seed * 7919 + 1));
            SpecSet afterRoll = load(rolled.files(new Random(seed * 7919 + 2)), "seed " + seed + " " + input);
            if (afterRoll != null) {
                ROLL_CASES.add(new Case<>(seed, input, rollChange, pool(before, spec), pool(afterRoll, spec), decide(before, afterRoll)));
            }
            for (int i = 0; i < fields.length; i++) {
                OtherField field = fields[(int) ((seed + 7 + i) % fields.length)];
                Spec other = spec.copy();
                Optional<Change> change = other.change(field, new Random(seed * 7919 + 3));
                if (change.isPresent()) {
                    SpecSet afterOther = load(other.files(new Random(seed * 7919 + 4)), "seed " + seed + " " + field);
                    if (afterOther != null) {
                        OTHER_CASES.add(new Case<>(seed, field, change.get(), pool(before, spec), pool(afterOther, spec), decide(before, afterOther)));
                    }
                    break;
                }
            }
        }
    }

    private static SpecSet load(Map<String, byte[]> files, String context) {
        LoadResult result = new SpecLoader().load(files);
        if (!result.errors().isEmpty()) {
            LOAD_FAILURES.add(context + ": " + result.errors() + "\n" + files.values().stream()
                    .map(b -> new String(b, StandardCharsets.UTF_8)).collect(Collectors.joining("\n---\n")));
            return null;
        }
        return result.specs();
    }

    private static ResolvedPool pool(SpecSet specs, Spec spec) {
        return specs.resolvedPools(spec.clusterName()).stream().filter(p -> p.name().equals(spec.poolName())).findFirst().orElseThrow();
    }

    private static PoolDecision decide(SpecSet before, SpecSet after) {
        List<PoolDecision> pools = new SpecDiff().diff(before, after).pools();
        assertThat(pools).hasSize(1);
        return pools.get(0);
    }

    @Test
    void everyChangedSpecLoadsWithoutErrors() {
        assertThat(LOAD_FAILURES).isEmpty();
        assertThat(ROLL_CASES).hasSize(SEEDS);
        assertThat(OTHER_CASES).hasSize(SEEDS);
    }

    @Test
    void aRollInputChangeIsReportedAtItsPathWithTheStrategysEffect() {
        List<String> failures = new ArrayList<>();
        for (Case<RollInput> c : ROLL_CASES) {
            Effect effect = c.after().pool().updateStrategy().inPlace() ? Effect.IN_PLACE : Effect.ROLL;
            boolean reported = c.decision().reasons().stream().anyMatch(r -> r.path().equals(c.kind().reasonPath) && r.effect() == effect);
            if (!reported) {
                failures.add(c.describe() + ": no " + effect + " reason at " + c.kind().reasonPath);
            }
        }

        assertThat(failures).isEmpty();
    }

    /**
     * The action the rules give for one roll-input change: rejected for an in-place pool when the
     * machine would have to be replaced or the catalog does not allow the image version, for any
     * pool on a Kubernetes downgrade or skipped minor; otherwise ROLL or IN_PLACE by strategy.
     */
    static PoolAction expectedAction(Case<RollInput> c) {
        boolean inPlace = c.after().pool().updateStrategy().inPlace();
        PoolAction update = inPlace ? PoolAction.IN_PLACE : PoolAction.ROLL;
        switch (c.kind()) {
            case KUBERNETES_MINOR -> {
                KubernetesVersion o = c.before().kubernetesVersion();
                KubernetesVersion n = c.after().kubernetesVersion();
                return n.compareTo(o) < 0 || n.minor() - o.minor() > 1 ? PoolAction.REJECTED : update;
            }
            case IMAGE_NAME, MACHINE_TYPE, VOLUME_TYPE, VOLUME_SIZE, CRI, NODE_LOCAL_DNS -> {
                return inPlace ? PoolAction.REJECTED : PoolAction.ROLL;
            }
            case IMAGE_VERSION -> {
                if (!inPlace) {
                    return PoolAction.ROLL;
                }
                ImageVersion from = c.before().pool().machine().image().version();
                ImageVersion to = c.after().pool().machine().image().version();
                Optional<MachineImage.Version> entry = c.after().cluster().machineImage(c.after().pool().machine().image().name())
                        .flatMap(i -> i.find(to));
                boolean allowed = entry.isPresent() && entry.get().inPlaceSupported()
                        && entry.get().minVersionForUpdate().map(min -> from.compareTo(min) >= 0).orElse(true);
                return allowed ? PoolAction.IN_PLACE : PoolAction.REJECTED;
            }
            default -> {
                return update;
            }
        }
    }

    @Test
    void aRollInputChangeGivesTheActionTheRulesPrescribe() {
        List<String> failures = new ArrayList<>();
        for (Case<RollInput> c : ROLL_CASES) {
            PoolAction expected = expectedAction(c);
            if (c.decision().action() != expected) {
                failures.add(c.describe() + ": expected " + expected);
            }
        }

        assertThat(failures).isEmpty();
        assertThat(ROLL_CASES).extracting(c -> c.decision().action())
                .contains(PoolAction.ROLL, PoolAction.IN_PLACE, PoolAction.REJECTED);
    }

    @Test
    void anInPlaceRejectionNamesTheFieldThatWouldNeedANewMachine() {
        Set<RollInput> machineFields = Set.of(RollInput.IMAGE_NAME, RollInput.MACHINE_TYPE, RollInput.VOLUME_TYPE,
                RollInput.VOLUME_SIZE, RollInput.CRI, RollInput.NODE_LOCAL_DNS);
        List<String> failures = new ArrayList<>();
        int checked = 0;
        for (Case<RollInput> c : ROLL_CASES) {
            if (!machineFields.contains(c.kind()) || !c.after().pool().updateStrategy().inPlace()) {
                continue;
            }
            checked++;
            boolean named = c.decision().reasons().stream()
                    .anyMatch(r -> r.effect() == Effect.REJECTED && r.path().equals(c.kind().reasonPath) && !r.message().isBlank());
            if (!named) {
                failures.add(c.describe() + ": no rejection at " + c.kind().reasonPath);
            }
        }

        assertThat(failures).isEmpty();
        assertThat(checked).isPositive();
    }

    @Test
    void aChangeOutsideTheRollHashGivesItsOwnActionWithAReasonAtItsPath() {
        List<String> failures = new ArrayList<>();
        for (Case<OtherField> c : OTHER_CASES) {
            Effect effect = switch (c.kind().action) {
                case PROPAGATE -> Effect.PROPAGATE;
                case KUBELET_RESTART -> Effect.KUBELET_RESTART;
                default -> Effect.NONE;
            };
            if (c.decision().action() != c.kind().action) {
                failures.add(c.describe() + ": expected " + c.kind().action);
            } else if (c.change().reasonPath() != null
                    && c.decision().reasons().stream().noneMatch(r -> r.path().equals(c.change().reasonPath()) && r.effect() == effect)) {
                failures.add(c.describe() + ": no " + effect + " reason at " + c.change().reasonPath());
            }
        }

        assertThat(failures).isEmpty();
    }

    @Test
    void aChangeOutsideTheRollHashNeverGivesARollReason() {
        List<String> failures = new ArrayList<>();
        for (Case<OtherField> c : OTHER_CASES) {
            if (c.decision().reasons().stream().anyMatch(r -> r.effect() == Effect.ROLL || r.effect() == Effect.IN_PLACE || r.effect() == Effect.REJECTED)) {
                failures.add(c.describe());
            }
        }

        assertThat(failures).isEmpty();
    }
}
