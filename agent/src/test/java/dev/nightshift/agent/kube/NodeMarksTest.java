package dev.nightshift.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

import dev.nightshift.agent.kube.NodeMarks.EvictionAttempt;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.spec.model.Taint;
import dev.nightshift.spec.model.TaintEffect;
import dev.nightshift.strategies.model.BlockedEviction;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;

/** Every node mark read back as it was written, and marks others broke read leniently. */
class NodeMarksTest {

    private static final Instant T = Instant.parse("2026-03-01T10:00:00.123Z");
    private static final StampedHash ROLL = new StampedHash(2, "a".repeat(32));
    private static final StampedHash KUBELET = new StampedHash(1, "b".repeat(32));

    @Test
    void bothHashesReadBackAsWritten() {
        Map<String, String> a = NodeMarks.hashes(ROLL, KUBELET);

        assertThat(NodeMarks.rollHash(a)).contains(ROLL);
        assertThat(NodeMarks.kubeletHash(a)).contains(KUBELET);
        assertThat(a).containsEntry("nightshift.dev/roll-hash", ROLL.value()).containsEntry("nightshift.dev/roll-hash-version", "2");
    }

    @Test
    void aHashWithoutAVersionIsVersionOneAndNoHashIsUnstamped() {
        assertThat(NodeMarks.rollHash(Map.of(NodeMarks.ROLL_HASH, "abc"))).contains(new StampedHash(1, "abc"));
        assertThat(NodeMarks.rollHash(Map.of(NodeMarks.ROLL_HASH_VERSION, "2"))).isEmpty();
        assertThat(NodeMarks.kubeletHash(Map.of(NodeMarks.KUBELET_HASH, " "))).isEmpty();
    }

    @Test
    void aHashVersionThatIsNotANumberReadsAsAVersionNoHashFunctionHasSoTheNodeIsOutdatedNotAdopted() {
        Map<String, String> a = Map.of(NodeMarks.KUBELET_HASH, "abc", NodeMarks.KUBELET_HASH_VERSION, "two");

        assertThat(NodeMarks.kubeletHash(a)).contains(new StampedHash(NodeMarks.UNKNOWN_HASH_VERSION, "abc"));
    }

    @Test
    void anInstantReadsBackAsWritten() {
        assertThat(NodeMarks.instant(NodeMarks.instant(T))).contains(T);
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {" ", "yesterday", "2026-03-01", "1700000000"})
    void aTimeThatIsNotAnInstantReadsAsAbsent(String text) {
        assertThat(NodeMarks.instant(text)).isEmpty();
    }

    @Test
    void evictionAttemptsReadBackAsWrittenAndAsThePlannerSeesThem() {
        Map<String, EvictionAttempt> written = Map.of(
                "app-0", new EvictionAttempt("web-pdb", 3, Optional.of(T)),
                "app-1", new EvictionAttempt("api-pdb", 1, Optional.empty()));

        String json = NodeMarks.evictionAttempts(written);

        assertThat(NodeMarks.evictionAttempts(json)).isEqualTo(written);
        assertThat(NodeMarks.blockedEvictions(json)).containsExactlyInAnyOrder(
                new BlockedEviction("app-0", "web-pdb", 3), new BlockedEviction("app-1", "api-pdb", 1));
    }

    @Test
    void evictionAttemptsAreWrittenInTheDocumentedJsonShape() {
        String json = NodeMarks.evictionAttempts(Map.of("app-0", new EvictionAttempt("web-pdb", 3, Optional.of(T))));

        assertThat(json).isEqualTo("{\"app-0\":{\"pdb\":\"web-pdb\",\"attempts\":3,\"refusedAt\":\"2026-03-01T10:00:00.123Z\"}}");
    }

    @Test
    void noEvictionAttemptsRemoveTheMark() {
        assertThat(NodeMarks.evictionAttempts(Map.of())).isNull();
    }

    @Test
    void aRefusalCountsOneMoreAttemptFromTheLatestRefusal() {
        EvictionAttempt again = new EvictionAttempt("old-pdb", 2, Optional.of(T)).refusedAgain("web-pdb", T.plusSeconds(60));

        assertThat(again).isEqualTo(new EvictionAttempt("web-pdb", 3, Optional.of(T.plusSeconds(60))));
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {"not json", "[\"app-0\"]", "42", "{\"app-0\": 3}", "{\"app-0\": [1]}"})
    void evictionAttemptsThatAreNotOursReadAsNone(String json) {
        assertThat(NodeMarks.evictionAttempts(json)).isEmpty();
        assertThat(NodeMarks.blockedEvictions(json)).isEmpty();
    }

    @Test
    void anEvictionAttemptWithBrokenFieldsReadsWithWhatCanBeRead() {
        String json = "{\"app-0\": {\"attempts\": \"many\", \"refusedAt\": \"soon\"}, \"app-1\": 7, "
                + "\"app-2\": {\"pdb\": \"web-pdb\", \"attempts\": 4, \"refusedAt\": 5}}";

        assertThat(NodeMarks.evictionAttempts(json)).isEqualTo(Map.of(
                "app-0", new EvictionAttempt("unknown", 0, Optional.empty()),
                "app-2", new EvictionAttempt("web-pdb", 4, Optional.empty())));
    }

    @Test
    void managedLabelKeysReadBackSorted() {
        Map<String, String> a = Map.of(NodeMarks.MANAGED_LABELS, NodeMarks.managedLabels(Set.of("tier", "team")));

        assertThat(a.get(NodeMarks.MANAGED_LABELS)).isEqualTo("[\"team\",\"tier\"]");
        assertThat(NodeMarks.managedLabelKeys(a)).containsExactly("team", "tier");
    }

    @Test
    void managedAnnotationKeysNeverIncludeAKeyUnderNightshiftsPrefixWrittenOrRead() {
        String written = NodeMarks.managedAnnotations(Set.of("example.com/owner", "nightshift.dev/rollout-outside-window"));
        assertThat(written).isEqualTo("[\"example.com/owner\"]");

        Map<String, String> edited = Map.of(NodeMarks.MANAGED_ANNOTATIONS,
                "[\"example.com/owner\", \"" + NodeMarks.ROLL_HASH + "\", \"example.com/ticket\"]");
        assertThat(NodeMarks.managedAnnotationKeys(edited)).containsExactly("example.com/owner", "example.com/ticket");
    }

    @Test
    void managedTaintsWithAndWithoutAValueReadBackAsWritten() {
        List<Taint> taints = List.of(new Taint("dedicated", "web", TaintEffect.NoSchedule),
                new Taint("spot", "", TaintEffect.PreferNoSchedule), new Taint("example.com/gpu", "a=b", TaintEffect.NoExecute));

        Map<String, String> a = Map.of(NodeMarks.MANAGED_TAINTS, NodeMarks.managedTaints(taints));

        assertThat(NodeMarks.managedTaints(a)).isEqualTo(taints);
    }

    @Test
    void aManagedTaintThatIsNotKeyValueEffectIsSkipped() {
        Map<String, String> a = Map.of(NodeMarks.MANAGED_TAINTS,
                "[\"dedicated=web:NoSchedule\", \"no-effect\", \"spot:Sometimes\", \":NoSchedule\", 3]");

        assertThat(NodeMarks.managedTaints(a)).containsExactly(new Taint("dedicated", "web", TaintEffect.NoSchedule));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "not json", "{\"team\": true}", "\"team\""})
    void managedListsThatAreNotListsReadAsEmpty(String json) {
        Map<String, String> a = Map.of(NodeMarks.MANAGED_LABELS, json, NodeMarks.MANAGED_ANNOTATIONS, json, NodeMarks.MANAGED_TAINTS, json);

        assertThat(NodeMarks.managedLabelKeys(a)).isEmpty();
        assertThat(NodeMarks.managedAnnotationKeys(a)).isEmpty();
        assertThat(NodeMarks.managedTaints(a)).isEmpty();
    }

    @Test
    void aNodeWithoutSpecAnnotationsOrLabelsReadsAsEmpty() {
        Node bare = new NodeBuilder().withNewMetadata().withName("n").endMetadata().build();

        assertThat(NodeMarks.taints(bare)).isEmpty();
        assertThat(NodeMarks.updateTainted(bare)).isFalse();
        assertThat(NodeMarks.annotations(bare)).isEmpty();
        assertThat(NodeMarks.labels(bare)).isEmpty();
        assertThat(NodeMarks.annotation(bare, NodeMarks.DRAIN_STARTED_AT)).isNull();
    }

    @Test
    void theUpdateTaintIsRecognisedByItsKey() {
        Node tainted = new NodeBuilder().withNewMetadata().withName("n").endMetadata().withNewSpec().addNewTaint()
                .withKey(NodeMarks.UPDATE_TAINT).withValue(NodeMarks.UPDATE_TAINT_VALUE).withEffect(NodeMarks.UPDATE_TAINT_EFFECT)
                .endTaint().endSpec().build();

        assertThat(NodeMarks.updateTainted(tainted)).isTrue();
    }

    @Test
    void theHashMarksOfOneHashLeaveTheOtherAlone() {
        Map<String, String> a = new HashMap<>(NodeMarks.hashes(ROLL, KUBELET));
        a.putAll(NodeMarks.kubeletHash(new StampedHash(1, "c".repeat(32))));

        assertThat(NodeMarks.rollHash(a)).contains(ROLL);
        assertThat(NodeMarks.kubeletHash(a)).contains(new StampedHash(1, "c".repeat(32)));
    }
}
