package dev.nightshift.spec.hash;

import static dev.nightshift.spec.hash.TestSpecs.ROLLING;
import static dev.nightshift.spec.hash.TestSpecs.edit;
import static dev.nightshift.spec.hash.TestSpecs.roll;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A pool listed in a rotation's pendingWorkersRollouts rolls for the time of its own entry, not the rotation's. */
class PendingWorkersRolloutsTest {

    private static final String CA_TIME = "certificateAuthorities:\n        lastInitiationTime: \"2026-01-01T00:00:00Z\"";
    private static final String BATCH_ENTRY = "pendingWorkersRollouts: [{name: batch, lastInitiationTime: \"2025-06-01T00:00:00Z\"}]";
    /** The pool web listed in the CA rotation with its own, earlier time. */
    private static final String WEB_LISTED = edit(ROLLING, BATCH_ENTRY,
            "pendingWorkersRollouts: [{name: batch, lastInitiationTime: \"2025-06-01T00:00:00Z\"}, {name: web, lastInitiationTime: \"2025-07-01T00:00:00Z\"}]");

    @Test
    void listingThePoolWithATimeOtherThanTheRotationsChangesItsRollHash() {
        assertThat(roll(WEB_LISTED)).isNotEqualTo(roll(ROLLING));
    }

    @Test
    void listingThePoolWithTheRotationsOwnTimeKeepsItsRollHash() {
        String listedAtSameTime = edit(ROLLING, BATCH_ENTRY,
                "pendingWorkersRollouts: [{name: batch, lastInitiationTime: \"2025-06-01T00:00:00Z\"}, {name: web, lastInitiationTime: \"2026-01-01T00:00:00Z\"}]");

        assertThat(roll(listedAtSameTime)).isEqualTo(roll(ROLLING));
    }

    @Test
    void aListedPoolIgnoresTheRotationsLastInitiationTime() {
        String rotationRestarted = edit(WEB_LISTED, CA_TIME, "certificateAuthorities:\n        lastInitiationTime: \"2026-05-01T00:00:00Z\"");

        assertThat(roll(rotationRestarted)).isEqualTo(roll(WEB_LISTED));
    }

    @Test
    void aListedPoolRollsWhenItsOwnEntryChanges() {
        String entryChanged = edit(WEB_LISTED, "{name: web, lastInitiationTime: \"2025-07-01T00:00:00Z\"}",
                "{name: web, lastInitiationTime: \"2025-08-01T00:00:00Z\"}");

        assertThat(roll(entryChanged)).isNotEqualTo(roll(WEB_LISTED));
    }

    @Test
    void anUnlistedPoolIgnoresAnotherPoolsEntry() {
        String otherEntryChanged = edit(ROLLING, BATCH_ENTRY,
                "pendingWorkersRollouts: [{name: batch, lastInitiationTime: \"2025-09-09T00:00:00Z\"}, {name: gpu, lastInitiationTime: \"2025-01-01T00:00:00Z\"}]");

        assertThat(roll(otherEntryChanged)).isEqualTo(roll(ROLLING));
    }

    @Test
    void theServiceAccountKeyRotationHonoursPendingWorkersRolloutsToo() {
        String listed = edit(ROLLING, "serviceAccountKey: {lastInitiationTime: \"2026-01-01T00:00:00Z\"}",
                "serviceAccountKey: {lastInitiationTime: \"2026-01-01T00:00:00Z\", pendingWorkersRollouts: [{name: web, lastInitiationTime: \"2025-03-01T00:00:00Z\"}]}");
        String rotationRestarted = edit(listed, "serviceAccountKey: {lastInitiationTime: \"2026-01-01T00:00:00Z\"",
                "serviceAccountKey: {lastInitiationTime: \"2026-04-01T00:00:00Z\"");

        assertThat(roll(rotationRestarted)).isEqualTo(roll(listed));
    }
}
