package dev.nightshift.spec.diff;

import static dev.nightshift.spec.hash.TestSpecs.IN_PLACE;
import static dev.nightshift.spec.hash.TestSpecs.ROLLING;
import static dev.nightshift.spec.hash.TestSpecs.edit;
import static dev.nightshift.spec.hash.TestSpecs.load;
import static dev.nightshift.spec.hash.TestSpecs.web;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.nightshift.spec.model.ResolvedPool;

/** Which commit is accepted and which refused, each pool judged against what it accepted. */
class CommitAcceptanceTest {

    private static final String IMAGE_1631 = "image: {name: gardenlinux, version: 1631.0.0}";
    private static final String K8S_1_30 = edit(ROLLING, "version: \"1.31.4\"", "version: \"1.30.4\"");

    private static String image(String yaml, String version) {
        return edit(yaml, IMAGE_1631, "image: {name: gardenlinux, version: " + version + "}");
    }

    private static Map<String, ResolvedPool> accepted(String yaml) {
        return Map.of("web", web(yaml));
    }

    @Test
    void anUpgradeIsAccepted() {
        CommitAcceptance.Verdict v = CommitAcceptance.judge("b", load(image(ROLLING, "1632.0.0")), "prod", accepted(ROLLING),
                InPlaceHistory.NONE);

        assertThat(v.accepted()).isTrue();
        assertThat(v.refusals()).isEmpty();
    }

    @Test
    void aDowngradeIsRefusedWithThePoolTheFieldAndWhy() {
        CommitAcceptance.Verdict v = CommitAcceptance.judge("b", load(K8S_1_30), "prod", accepted(ROLLING), InPlaceHistory.NONE);

        assertThat(v.accepted()).isFalse();
        assertThat(v.refusals()).singleElement().asString().startsWith("web: spec.kubernetes.version 1.31.4 -> 1.30.4: ");
    }

    @Test
    void aPoolThatAcceptedNothingIsNewWhateverItAsksFor() {
        CommitAcceptance.Verdict v = CommitAcceptance.judge("b", load(K8S_1_30), "prod", Map.of(), InPlaceHistory.NONE);

        assertThat(v.accepted()).isTrue();
    }

    @Test
    void eachPoolIsJudgedAgainstWhatItAcceptedNotAgainstAnotherCommit() {
        // web accepted 1.30 (its record says so); 1.30 offered again is no downgrade, whatever other pools accepted.
        CommitAcceptance.Verdict v = CommitAcceptance.judge("c", load(K8S_1_30), "prod", accepted(K8S_1_30), InPlaceHistory.NONE);

        assertThat(v.accepted()).isTrue();
    }

    @Test
    void aCommitWithoutTheAgentsClusterIsRefused() {
        CommitAcceptance.Verdict v = CommitAcceptance.judge("b", load(ROLLING), "staging", accepted(ROLLING), InPlaceHistory.NONE);

        assertThat(v.refusals()).containsExactly("commit b has no Cluster named staging");
    }

    @Test
    void aSpentForceTokenIsReportedForItsPool() {
        String tokened = edit(IN_PLACE, "annotations: {owner: team-web}",
                "annotations: {owner: team-web, nightshift.dev/force-in-place-update: \"t-1\"}");
        InPlaceHistory unfinished = new InPlaceHistory(Map.of(InPlaceHistory.key("prod", "web"),
                new InPlaceHistory.Entry(true, Set.of())));

        CommitAcceptance.Verdict v = CommitAcceptance.judge("b", load(image(tokened, "1632.0.0")), "prod", accepted(IN_PLACE),
                unfinished);

        assertThat(v.accepted()).isTrue();
        assertThat(v.forceTokensUsed()).containsExactly(Map.entry("web", "t-1"));
    }

    @Test
    void theCommitMostPoolsAcceptedIsActedOn() {
        assertThat(CommitAcceptance.majority(Map.of("a", "c2", "b", "c1", "c", "c2"))).contains("c2");
    }

    @Test
    void aTieGoesToTheFirstCommitInNameOrder() {
        assertThat(CommitAcceptance.majority(Map.of("a", "c2", "b", "c1"))).contains("c1");
    }

    @Test
    void noRecordsNameNoCommit() {
        assertThat(CommitAcceptance.majority(Map.of())).isEmpty();
    }
}
