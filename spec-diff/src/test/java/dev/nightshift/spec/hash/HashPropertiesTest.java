package dev.nightshift.spec.hash;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.nightshift.spec.hash.RandomSpecs.Change;
import dev.nightshift.spec.hash.RandomSpecs.OtherField;
import dev.nightshift.spec.hash.RandomSpecs.RollInput;
import dev.nightshift.spec.hash.RandomSpecs.Spec;
import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.spec.model.ResolvedPool;

/**
 * Properties of both hashes over {@value #SEEDS} random valid specs. Everything is seeded
 * ({@code RandomSpecs.generate(seed)}, styles and changes from {@link #random(long, int)}), so every
 * failure message names the seed that reproduces it. Loading is the slow part, so each seed is
 * loaded once plainly, once reformatted, and once per change, and every property reads that
 * shared sample; each property reports all failing seeds together.
 */
class HashPropertiesTest {

    static final int SEEDS = 500;
    /** Changes per seed of each kind (roll input, other field); kinds rotate with the seed so every kind is covered. */
    static final int CHANGES_PER_SEED = 2;

    /** A spec as loaded, with both hashes. */
    record Hashed(ResolvedPool pool, StampedHash roll, StampedHash kubelet) {
    }

    record Changed<K>(K kind, Change change, Map<String, byte[]> files, Hashed after) {
    }

    record Sample(long seed, Spec spec, Hashed plain, Map<String, byte[]> reformattedFiles, Hashed reformatted,
                  List<Changed<RollInput>> rollChanges, List<Changed<OtherField>> otherChanges) {
    }

    private static final List<Sample> SAMPLES = new ArrayList<>();
    private static final List<String> LOAD_FAILURES = new ArrayList<>();

    @BeforeAll
    static void sample() {
        for (long seed = 0; seed < SEEDS; seed++) {
            Spec spec = RandomSpecs.generate(seed);
            Hashed plain = hash(spec, spec.files(), "seed " + seed + " plain", LOAD_FAILURES);
            Map<String, byte[]> reformattedFiles = spec.files(random(seed, 1));
            Hashed reformatted = hash(spec, reformattedFiles, "seed " + seed + " reformatted", LOAD_FAILURES);

            Random pick = random(seed, 2);
            List<Changed<RollInput>> rolls = new ArrayList<>();
            for (RollInput input : kinds(RollInput.values(), seed, pick)) {
                Spec changed = spec.copy();
                Change change = changed.change(input, random(seed, 100 + input.ordinal()));
                Map<String, byte[]> files = changed.files(random(seed, 200 + input.ordinal()));
                rolls.add(new Changed<>(input, change, files,
                        hash(changed, files, "seed " + seed + " " + input + " (" + change + ")", LOAD_FAILURES)));
            }
            List<Changed<OtherField>> others = new ArrayList<>();
            for (OtherField field : kinds(OtherField.values(), seed, pick)) {
                Spec changed = spec.copy();
                Optional<Change> change = changed.change(field, random(seed, 300 + field.ordinal()));
                if (change.isPresent()) {
                    Map<String, byte[]> files = changed.files(random(seed, 400 + field.ordinal()));
                    others.add(new Changed<>(field, change.get(), files,
                            hash(changed, files, "seed " + seed + " " + field + " (" + change.get() + ")", LOAD_FAILURES)));
                }
            }
            SAMPLES.add(new Sample(seed, spec, plain, reformattedFiles, reformatted, rolls, others));
        }
    }

    /** {@link #CHANGES_PER_SEED} distinct kinds: the seed's turn in the rotation, then random ones. */
    static <K extends Enum<K>> List<K> kinds(K[] all, long seed, Random pick) {
        List<K> chosen = new ArrayList<>();
        chosen.add(all[(int) (seed % all.length)]);
        while (chosen.size() < CHANGES_PER_SEED) {
            K k = all[pick.nextInt(all.length)];
            if (!chosen.contains(k)) {
                chosen.add(k);
            }
        }
        return chosen;
    }

    static Random random(long seed, int salt) {
        return new Random(seed * 1_000_003L + salt);
    }

    /** Loads and hashes, or adds to {@code failures} and returns null when the spec has errors. */
    static Hashed hash(Spec spec, Map<String, byte[]> files, String context, List<String> failures) {
        LoadResult result = new SpecLoader().load(files);
        if (!result.errors().isEmpty()) {
            failures.add(context + ": does not load: " + result.errors() + "\n" + text(files));
            return null;
        }
        Optional<ResolvedPool> pool = result.specs().resolvedPools(spec.clusterName()).stream()
                .filter(p -> p.name().equals(spec.poolName())).findFirst();
        if (pool.isEmpty()) {
            failures.add(context + ": no pool " + spec.poolName() + "\n" + text(files));
            return null;
        }
        return new Hashed(pool.get(), HashScheme.ROLL.compute(pool.get()), HashScheme.KUBELET.compute(pool.get()));
    }

    static String text(Map<String, byte[]> files) {
        return files.entrySet().stream()
                .map(e -> "--- " + e.getKey() + "\n" + new String(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("\n"));
    }

    @Test
    void everyGeneratedSpecLoadsWithoutErrorsPlainlyReformattedAndChanged() {
        assertThat(LOAD_FAILURES).isEmpty();
        assertThat(SAMPLES).hasSize(SEEDS);
    }

    @Test
    void reformattingNeverChangesEitherHash() {
        List<String> failures = new ArrayList<>();
        int checked = 0;
        for (Sample s : SAMPLES) {
            if (s.plain() == null || s.reformatted() == null) {
                continue;
            }
            checked++;
            if (!s.plain().roll().equals(s.reformatted().roll()) || !s.plain().kubelet().equals(s.reformatted().kubelet())) {
                failures.add("seed " + s.seed() + ": roll " + s.plain().roll() + " -> " + s.reformatted().roll()
                        + ", kubelet " + s.plain().kubelet() + " -> " + s.reformatted().kubelet()
                        + "\nplain:\n" + text(s.spec().files()) + "\nreformatted:\n" + text(s.reformattedFiles()));
            }
        }

        assertThat(failures).isEmpty();
        assertThat(checked).isEqualTo(SEEDS);
    }

    @Test
    void reformattedSpecsDifferFromThePlainTextTheyAreComparedWith() {
        long differing = SAMPLES.stream()
                .filter(s -> !text(s.spec().files()).equals(text(s.reformattedFiles())))
                .count();

        assertThat(differing).isEqualTo(SEEDS);
    }

    @Test
    void changingAnyOneRollInputAlwaysChangesTheRollHash() {
        List<String> failures = new ArrayList<>();
        Set<RollInput> covered = EnumSet.noneOf(RollInput.class);
        for (Sample s : SAMPLES) {
            for (Changed<RollInput> c : s.rollChanges()) {
                if (s.plain() == null || c.after() == null) {
                    continue;
                }
                covered.add(c.kind());
                if (s.plain().roll().equals(c.after().roll())) {
                    failures.add("seed " + s.seed() + " " + c.kind() + " (" + c.change() + "): roll hash unchanged " + c.after().roll()
                            + "\nbefore:\n" + text(s.spec().files()) + "\nafter:\n" + text(c.files()));
                }
            }
        }

        assertThat(failures).isEmpty();
        assertThat(covered).containsExactlyInAnyOrder(RollInput.values());
    }

    @Test
    void changingAnyOneOtherFieldNeverChangesTheRollHash() {
        List<String> failures = new ArrayList<>();
        Set<OtherField> covered = EnumSet.noneOf(OtherField.class);
        for (Sample s : SAMPLES) {
            for (Changed<OtherField> c : s.otherChanges()) {
                if (s.plain() == null || c.after() == null) {
                    continue;
                }
                covered.add(c.kind());
                if (!s.plain().roll().equals(c.after().roll())) {
                    failures.add("seed " + s.seed() + " " + c.kind() + " (" + c.change() + "): roll hash " + s.plain().roll()
                            + " -> " + c.after().roll() + "\nbefore:\n" + text(s.spec().files()) + "\nafter:\n" + text(c.files()));
                }
            }
        }

        assertThat(failures).isEmpty();
        assertThat(covered).containsExactlyInAnyOrder(OtherField.values());
    }

    @Test
    void changingAnyOneOtherFieldChangesTheKubeletHashExactlyWhenItIsAKubeletChange() {
        List<String> failures = new ArrayList<>();
        int checked = 0;
        for (Sample s : SAMPLES) {
            for (Changed<OtherField> c : s.otherChanges()) {
                if (s.plain() == null || c.after() == null) {
                    continue;
                }
                checked++;
                boolean changed = !s.plain().kubelet().equals(c.after().kubelet());
                if (changed != c.kind().changesKubeletHash()) {
                    failures.add("seed " + s.seed() + " " + c.kind() + " (" + c.change() + "): kubelet hash " + s.plain().kubelet()
                            + " -> " + c.after().kubelet());
                }
            }
        }

        assertThat(failures).isEmpty();
        assertThat(checked).isGreaterThan(SEEDS);
    }
}
