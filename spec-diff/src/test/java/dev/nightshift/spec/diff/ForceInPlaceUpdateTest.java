package dev.nightshift.spec.diff;

import static dev.nightshift.spec.diff.Decisions.decide;
import static dev.nightshift.spec.hash.TestSpecs.IN_PLACE;
import static dev.nightshift.spec.hash.TestSpecs.ROLLING;
import static dev.nightshift.spec.hash.TestSpecs.edit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

/**
 * A new in-place roll change while the pool's previous in-place update is unfinished is refused,
 * unless {@code nightshift.dev/force-in-place-update} holds a token not used before.
 */
class ForceInPlaceUpdateTest {

    private static final String FORCE = "metadata.annotations.nightshift.dev/force-in-place-update";
    private static final String IMAGE_1631 = "image: {name: gardenlinux, version: 1631.0.0}";
    private static final String IMAGE_1632 = "image: {name: gardenlinux, version: 1632.0.0}";
    private static final String ANNOTATIONS = "annotations: {owner: team-web}";

    private static final InPlaceHistory UNFINISHED = history("prod", "web", true, "used-1");
    private static final InPlaceHistory FINISHED = history("prod", "web", false, "used-1");

    private static InPlaceHistory history(String cluster, String pool, boolean unfinished, String... usedTokens) {
        return new InPlaceHistory(Map.of(InPlaceHistory.key(cluster, pool), new InPlaceHistory.Entry(unfinished, Set.of(usedTokens))));
    }

    private static String withToken(String yaml, String token) {
        return edit(yaml, ANNOTATIONS, "annotations: {owner: team-web, nightshift.dev/force-in-place-update: \"" + token + "\"}");
    }

    private static String imageBumped(String yaml) {
        return edit(yaml, IMAGE_1631, IMAGE_1632);
    }

    @Test
    void anInPlaceChangeWithoutATokenIsRejectedWhileThePreviousOneIsUnfinished() {
        PoolDecision d = decide(IN_PLACE, imageBumped(IN_PLACE), UNFINISHED);

        assertThat(d.action()).isEqualTo(PoolAction.REJECTED);
        assertThat(d.reasons()).extracting(Reason::path, Reason::effect).containsExactlyInAnyOrder(
                tuple(FORCE, Effect.REJECTED),
                tuple("spec.machine.image.version", Effect.IN_PLACE));
        assertThat(d.forceTokenUsed()).isEmpty();
    }

    @Test
    void anInPlaceChangeWithAFreshTokenIsAllowedAndSpendsTheToken() {
        PoolDecision d = decide(IN_PLACE, withToken(imageBumped(IN_PLACE), "fresh-2"), UNFINISHED);

        assertThat(d.action()).isEqualTo(PoolAction.IN_PLACE);
        assertThat(d.forceTokenUsed()).contains("fresh-2");
        assertThat(d.reasons()).extracting(Reason::path, Reason::newValue, Reason::effect).containsExactlyInAnyOrder(
                tuple("spec.machine.image.version", "1632.0.0", Effect.IN_PLACE),
                tuple(FORCE, "fresh-2", Effect.NONE));
    }

    @Test
    void aFreshTokenAlreadyInTheOldSpecIsStillSpendable() {
        String tokened = withToken(IN_PLACE, "fresh-3");

        PoolDecision d = decide(tokened, imageBumped(tokened), UNFINISHED);

        assertThat(d.action()).isEqualTo(PoolAction.IN_PLACE);
        assertThat(d.forceTokenUsed()).contains("fresh-3");
        assertThat(d.reasons()).extracting(Reason::path, Reason::effect)
                .containsExactly(tuple("spec.machine.image.version", Effect.IN_PLACE));
    }

    @Test
    void anInPlaceChangeWithAnAlreadyUsedTokenIsRejected() {
        String tokened = withToken(IN_PLACE, "used-1");

        PoolDecision d = decide(tokened, imageBumped(tokened), UNFINISHED);

        assertThat(d.action()).isEqualTo(PoolAction.REJECTED);
        assertThat(d.forceTokenUsed()).isEmpty();
        assertThat(d.reasons()).extracting(Reason::path, Reason::newValue, Reason::effect).containsExactlyInAnyOrder(
                tuple(FORCE, "used-1", Effect.REJECTED),
                tuple("spec.machine.image.version", "1632.0.0", Effect.IN_PLACE));
    }

    @Test
    void aBlankTokenCountsAsNoToken() {
        PoolDecision d = decide(IN_PLACE, withToken(imageBumped(IN_PLACE), " "), UNFINISHED);

        assertThat(d.action()).isEqualTo(PoolAction.REJECTED);
        assertThat(d.forceTokenUsed()).isEmpty();
    }

    @Test
    void aFreshTokenDoesNotLiftAnotherRejectionAndIsNotSpent() {
        String changed = edit(withToken(imageBumped(IN_PLACE), "fresh-4"), "type: m5.large", "type: m5.xlarge");

        PoolDecision d = decide(IN_PLACE, changed, UNFINISHED);

        assertThat(d.action()).isEqualTo(PoolAction.REJECTED);
        assertThat(d.forceTokenUsed()).isEmpty();
        assertThat(d.reasons()).extracting(Reason::path, Reason::effect).containsExactlyInAnyOrder(
                tuple("spec.machine.type", Effect.REJECTED),
                tuple("spec.machine.type", Effect.IN_PLACE),
                tuple("spec.machine.image.version", Effect.IN_PLACE),
                tuple(FORCE, Effect.NONE));
    }

    @Test
    void aTokenIsNotSpentWhenThePreviousUpdateIsFinished() {
        PoolDecision d = decide(IN_PLACE, withToken(imageBumped(IN_PLACE), "fresh-5"), FINISHED);

        assertThat(d.action()).isEqualTo(PoolAction.IN_PLACE);
        assertThat(d.forceTokenUsed()).isEmpty();
    }

    @Test
    void aKubeletOnlyChangeIsNotBlockedByAnUnfinishedInPlaceUpdate() {
        PoolDecision d = decide(IN_PLACE, edit(IN_PLACE, "version: \"1.31.4\"", "version: \"1.31.5\""), UNFINISHED);

        assertThat(d.action()).isEqualTo(PoolAction.KUBELET_RESTART);
        assertThat(d.forceTokenUsed()).isEmpty();
    }

    @Test
    void aMetadataOnlyChangeIsNotBlockedByAnUnfinishedInPlaceUpdate() {
        PoolDecision d = decide(IN_PLACE, edit(IN_PLACE, "labels: {tier: frontend}", "labels: {tier: api}"), UNFINISHED);

        assertThat(d.action()).isEqualTo(PoolAction.PROPAGATE);
    }

    @Test
    void anotherPoolsUnfinishedUpdateDoesNotBlockThisPool() {
        PoolDecision d = decide(IN_PLACE, imageBumped(IN_PLACE), history("prod", "batch", true));

        assertThat(d.action()).isEqualTo(PoolAction.IN_PLACE);
    }

    @Test
    void theSamePoolNameInAnotherClusterDoesNotBlockThisPool() {
        PoolDecision d = decide(IN_PLACE, imageBumped(IN_PLACE), history("staging", "web", true));

        assertThat(d.action()).isEqualTo(PoolAction.IN_PLACE);
    }

    @Test
    void aRollingPoolIsNotBlockedByInPlaceHistory() {
        PoolDecision d = decide(ROLLING, imageBumped(ROLLING), UNFINISHED);

        assertThat(d.action()).isEqualTo(PoolAction.ROLL);
        assertThat(d.forceTokenUsed()).isEmpty();
    }

    @Test
    void aReportCarriesTheSpentTokenOfEachPool() {
        DiffReport report = new SpecDiff().diff(dev.nightshift.spec.hash.TestSpecs.load(IN_PLACE),
                dev.nightshift.spec.hash.TestSpecs.load(withToken(imageBumped(IN_PLACE), "fresh-6")), UNFINISHED);

        assertThat(report.pools()).extracting(PoolDecision::pool, PoolDecision::action, PoolDecision::forceTokenUsed)
                .containsExactly(tuple("web", PoolAction.IN_PLACE, java.util.Optional.of("fresh-6")));
    }
}
