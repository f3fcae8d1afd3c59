package dev.nightshift.spec.hash;

import static dev.nightshift.spec.hash.TestSpecs.ROLLING;
import static dev.nightshift.spec.hash.TestSpecs.edit;
import static dev.nightshift.spec.hash.TestSpecs.web;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.nightshift.spec.model.ResolvedPool;

/**
 * A later release that changes a hash's inputs adds a version and keeps the old function, so a
 * node stamped under the old version is re-stamped, not rolled, when it still runs the spec.
 */
class HashSchemeVersioningTest {

    /** Version 1 looks at the machine type only. */
    private static final HashFunction OLD = new HashFunction() {
        @Override
        public int version() {
            return 1;
        }

        @Override
        public void inputs(ResolvedPool pool, HashInputSink sink) {
            sink.accept("spec.machine.type", pool.pool().machine().type());
        }
    };

    /** Version 2 adds the image version. */
    private static final HashFunction NEW = new HashFunction() {
        @Override
        public int version() {
            return 2;
        }

        @Override
        public void inputs(ResolvedPool pool, HashInputSink sink) {
            sink.accept("spec.machine.type", pool.pool().machine().type());
            sink.accept("spec.machine.image.version", pool.pool().machine().image().version().text());
        }
    };

    private static final HashScheme BEFORE_UPGRADE = new HashScheme("roll", List.of(OLD));
    private static final HashScheme AFTER_UPGRADE = new HashScheme("roll", List.of(OLD, NEW));

    private static final ResolvedPool DESIRED = web(ROLLING);
    private static final ResolvedPool OTHER_TYPE = web(edit(ROLLING, "type: m5.large", "type: m5.xlarge"));
    private static final ResolvedPool OTHER_IMAGE =
            web(edit(ROLLING, "image: {name: gardenlinux, version: 1631.0.0}", "image: {name: gardenlinux, version: 1632.0.0}"));

    @Test
    void computeStampsTheNewestVersion() {
        assertThat(AFTER_UPGRADE.compute(DESIRED).version()).isEqualTo(2);
        assertThat(AFTER_UPGRADE.currentVersion()).isEqualTo(2);
    }

    @Test
    void aCurrentStampOfTheDesiredSpecIsCurrent() {
        StampedHash stamp = AFTER_UPGRADE.compute(DESIRED);

        assertThat(AFTER_UPGRADE.match(stamp, DESIRED)).isEqualTo(StampMatch.CURRENT);
    }

    @Test
    void aCurrentStampOfAnotherSpecIsOutdated() {
        StampedHash stamp = AFTER_UPGRADE.compute(OTHER_IMAGE);

        assertThat(AFTER_UPGRADE.match(stamp, DESIRED)).isEqualTo(StampMatch.OUTDATED);
    }

    @Test
    void anOldStampEqualToTheOldVersionsHashOfTheDesiredSpecIsRestamped() {
        StampedHash stamp = BEFORE_UPGRADE.compute(DESIRED);

        assertThat(stamp.version()).isEqualTo(1);
        assertThat(AFTER_UPGRADE.match(stamp, DESIRED)).isEqualTo(StampMatch.RESTAMP);
    }

    @Test
    void anOldStampIsComparedOnlyOnTheOldVersionsInputs() {
        // The image version is not an input of version 1, so a node stamped under it cannot tell.
        StampedHash stamp = BEFORE_UPGRADE.compute(OTHER_IMAGE);

        assertThat(AFTER_UPGRADE.match(stamp, DESIRED)).isEqualTo(StampMatch.RESTAMP);
    }

    @Test
    void anOldStampOfASpecDifferingInAnOldInputIsOutdated() {
        StampedHash stamp = BEFORE_UPGRADE.compute(OTHER_TYPE);

        assertThat(AFTER_UPGRADE.match(stamp, DESIRED)).isEqualTo(StampMatch.OUTDATED);
    }

    @Test
    void anOldStampIsNeverCurrentEvenWhenItsValueEqualsTheCurrentHash() {
        StampedHash current = AFTER_UPGRADE.compute(DESIRED);

        assertThat(AFTER_UPGRADE.match(new StampedHash(1, current.value()), DESIRED)).isEqualTo(StampMatch.OUTDATED);
    }

    @Test
    void aStampOfAnUnknownVersionIsOutdatedEvenWithTheCurrentValue() {
        StampedHash current = AFTER_UPGRADE.compute(DESIRED);

        assertThat(AFTER_UPGRADE.match(new StampedHash(7, current.value()), DESIRED)).isEqualTo(StampMatch.OUTDATED);
        assertThat(AFTER_UPGRADE.match(new StampedHash(0, current.value()), DESIRED)).isEqualTo(StampMatch.OUTDATED);
    }

    @Test
    void aStampFromANewerReleaseIsOutdatedAfterADowngrade() {
        StampedHash fromNewer = AFTER_UPGRADE.compute(DESIRED);

        assertThat(BEFORE_UPGRADE.match(fromNewer, DESIRED)).isEqualTo(StampMatch.OUTDATED);
    }

    @Test
    void versionsMustBeListedOldestFirst() {
        assertThatThrownBy(() -> new HashScheme("roll", List.of(NEW, OLD)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("oldest first");
    }

    @Test
    void aSchemeNeedsAtLeastOneVersion() {
        assertThatThrownBy(() -> new HashScheme("roll", List.of()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theBuiltInSchemesAreAtVersionOne() {
        assertThat(HashScheme.ROLL.currentVersion()).isEqualTo(1);
        assertThat(HashScheme.KUBELET.currentVersion()).isEqualTo(1);
        assertThat(HashScheme.ROLL.name()).isEqualTo("roll");
        assertThat(HashScheme.KUBELET.name()).isEqualTo("kubelet");
    }

    @Test
    void theBuiltInRollHashMatchesItsOwnStamp() {
        StampedHash stamp = HashScheme.ROLL.compute(DESIRED);

        assertThat(HashScheme.ROLL.match(stamp, DESIRED)).isEqualTo(StampMatch.CURRENT);
        assertThat(HashScheme.ROLL.match(stamp, OTHER_IMAGE)).isEqualTo(StampMatch.OUTDATED);
    }
}
