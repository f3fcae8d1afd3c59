package dev.nightshift.spec.diff;

import static dev.nightshift.spec.hash.TestSpecs.ROLLING;
import static dev.nightshift.spec.hash.TestSpecs.edit;
import static dev.nightshift.spec.hash.TestSpecs.web;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.nightshift.spec.model.ResolvedPool;

/** What a pool's target is after each accepted commit, and from which spec its reasons are taken. */
class PoolTargetTest {

    private static final String IMAGE_1631 = "image: {name: gardenlinux, version: 1631.0.0}";
    private static final ResolvedPool A = web(ROLLING);
    private static final ResolvedPool B = web(image("1632.0.0"));
    private static final ResolvedPool C = web(image("1633.0.0"));

    private static String image(String version) {
        return edit(ROLLING, IMAGE_1631, "image: {name: gardenlinux, version: " + version + "}");
    }

    private static PoolTarget next(Optional<PoolTarget> previous, ResolvedPool baseline, boolean current, String commit, ResolvedPool offered) {
        return PoolTarget.next(previous, Optional.of(baseline), current, commit, offered, InPlaceHistory.Entry.CLEAN);
    }

    @Test
    void anImageBumpOfACurrentPoolIsARollWithTheImageVersionAsReason() {
        PoolTarget t = next(Optional.empty(), A, true, "bbbbbbbbb", B);

        assertThat(t.revision()).isEqualTo("bbbbbbbbb");
        assertThat(t.action()).isEqualTo(PoolAction.ROLL);
        assertThat(t.reasons()).containsExactly(Reason.change(Effect.ROLL, "spec.machine.image.version", "1631.0.0", "1632.0.0"));
        assertThat(t.summary(3)).isEqualTo("spec.machine.image.version 1631.0.0 → 1632.0.0");
        assertThat(t.shortRevision()).isEqualTo("bbbbbbb");
    }

    @Test
    void aSecondPushMidRolloutGivesTheReasonsFromTheLastFullyCurrentSpec() {
        PoolTarget toB = next(Optional.empty(), A, true, "b", B);

        // B is still rolling out: the pool was last fully current at A.
        PoolTarget toC = next(Optional.of(toB), A, false, "c", C);

        assertThat(toC.revision()).isEqualTo("c");
        assertThat(toC.reasons()).containsExactly(Reason.change(Effect.ROLL, "spec.machine.image.version", "1631.0.0", "1633.0.0"));
    }

    @Test
    void aCommitThatChangesNothingForThePoolKeepsTheTargetAndItsRevision() {
        PoolTarget toB = next(Optional.empty(), A, true, "b", B);

        assertThat(next(Optional.of(toB), A, false, "c", B)).isSameAs(toB);
    }

    @Test
    void aCurrentPoolKeepsTheTargetItLastCarriedOut() {
        PoolTarget toB = next(Optional.empty(), A, true, "b", B);

        // B rolled out; commit c changes another pool (or nothing): B is the baseline and the target stays.
        assertThat(next(Optional.of(toB), B, true, "c", B)).isEqualTo(toB);
        // A change that does nothing to the nodes keeps it too.
        assertThat(next(Optional.of(toB), B, true, "d", web(edit(image("1632.0.0"), "interval: 15s", "interval: 30s"))))
                .isEqualTo(toB);
    }

    @Test
    void aRevertMidRolloutIsANewTargetWithNothingToDo() {
        PoolTarget toB = next(Optional.empty(), A, true, "b", B);

        PoolTarget back = next(Optional.of(toB), A, false, "c", A);

        assertThat(back).isEqualTo(new PoolTarget("c", PoolAction.NONE, List.of()));
    }

    @Test
    void aPoolNeverFullyCurrentIsCreatedByTheCommitThatIntroducedIt() {
        PoolTarget created = PoolTarget.next(Optional.empty(), Optional.empty(), false, "a", A, InPlaceHistory.Entry.CLEAN);

        assertThat(created).isEqualTo(new PoolTarget("a", PoolAction.CREATE, List.of()));
        assertThat(PoolTarget.next(Optional.of(created), Optional.empty(), false, "b", B, InPlaceHistory.Entry.CLEAN)).isSameAs(created);
    }

    @Test
    void theSummaryListsTheReasonsThatActAndCountsTheRest() {
        PoolTarget t = new PoolTarget("x", PoolAction.ROLL, List.of(
                Reason.change(Effect.ROLL, "a", "1", "2"), Reason.change(Effect.NONE, "n", "1", "2"),
                Reason.change(Effect.ROLL, "b", "", "3"), Reason.change(Effect.PROPAGATE, "c", "4", "")));

        assertThat(t.summary(2)).isEqualTo("a 1 → 2; b (unset) → 3 (and 1 more)");
    }
}
