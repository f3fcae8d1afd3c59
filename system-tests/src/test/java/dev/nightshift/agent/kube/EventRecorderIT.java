package dev.nightshift.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;

/** Events as the one recorder writes them, against fabric8's mock API server. */
@EnableKubernetesMockClient(crud = true)
class EventRecorderIT {

    private static final Instant T0 = Instant.parse("2026-11-03T02:00:00Z");

    KubernetesClient client;

    private List<Event> events() {
        return client.v1().events().inNamespace("default").list().getItems();
    }

    @Test
    void anEventNamesItsObjectReasonTypeAndReporter() {
        new EventRecorder(client, Clock.fixed(T0, ZoneOffset.UTC), "agent-0")
                .node("web-1", EventRecorder.Reason.NodeReplacing, "Replacing node: spec.machine.image.version 1631.0.0 → 1632.0.0 (commit 1a2b3c4)");

        assertThat(events()).singleElement().satisfies(e -> {
            assertThat(e.getInvolvedObject().getKind()).isEqualTo("Node");
            assertThat(e.getInvolvedObject().getName()).isEqualTo("web-1");
            assertThat(e.getReason()).isEqualTo("NodeReplacing");
            assertThat(e.getType()).isEqualTo("Normal");
            assertThat(e.getMessage()).isEqualTo("Replacing node: spec.machine.image.version 1631.0.0 → 1632.0.0 (commit 1a2b3c4)");
            assertThat(e.getReportingComponent()).isEqualTo("nightshift");
            assertThat(e.getReportingInstance()).isEqualTo("agent-0");
            assertThat(e.getSource().getComponent()).isEqualTo("nightshift");
            assertThat(e.getCount()).isEqualTo(1);
            assertThat(e.getFirstTimestamp()).isEqualTo(T0.toString());
        });
    }

    @Test
    void aRepeatedEventIsCountedOnOneObjectWithItsLastTimestamp() {
        new EventRecorder(client, Clock.fixed(T0, ZoneOffset.UTC), "agent-0")
                .node("db-1", EventRecorder.Reason.EvictionBlocked, "eviction of shop/db-0 refused by db-pdb");
        EventRecorder later = new EventRecorder(client, Clock.fixed(T0.plusSeconds(60), ZoneOffset.UTC), "agent-1");
        later.node("db-1", EventRecorder.Reason.EvictionBlocked, "eviction of shop/db-0 refused by db-pdb");
        later.node("db-1", EventRecorder.Reason.EvictionBlocked, "eviction of shop/db-0 refused by db-pdb");

        assertThat(events()).singleElement().satisfies(e -> {
            assertThat(e.getCount()).isEqualTo(3);
            assertThat(e.getFirstTimestamp()).isEqualTo(T0.toString());
            assertThat(e.getLastTimestamp()).isEqualTo(T0.plusSeconds(60).toString());
            assertThat(e.getReportingInstance()).isEqualTo("agent-1");
        });
    }

    @Test
    void differentNotesOnOneNodeAreDifferentEvents() {
        EventRecorder recorder = new EventRecorder(client, Clock.fixed(T0, ZoneOffset.UTC), "agent-0");
        recorder.node("web-1", EventRecorder.Reason.NodeReplacing, "Replacing node: a (commit 1)");
        recorder.node("web-1", EventRecorder.Reason.NodeReplacing, "Replacing node: b (commit 2)");

        assertThat(events()).extracting(Event::getMessage).containsExactlyInAnyOrder("Replacing node: a (commit 1)", "Replacing node: b (commit 2)");
    }

    @Test
    void onAThreadOfItsOwnRecordingReturnsBeforeTheWriteAndTheEventsAreWrittenInTheOrderRecorded() {
        List<Runnable> held = new java.util.ArrayList<>();
        EventRecorder recorder = new EventRecorder(client, Clock.fixed(T0, ZoneOffset.UTC), "agent-0", held::add);
        recorder.node("db-1", EventRecorder.Reason.EvictionBlocked, "eviction of shop/db-0 refused by db-pdb");
        recorder.node("db-1", EventRecorder.Reason.EvictionBlocked, "eviction of shop/db-0 refused by db-pdb");

        assertThat(events()).as("nothing written while the recorder's thread has not run").isEmpty();
        held.forEach(Runnable::run);
        assertThat(events()).singleElement().satisfies(e -> assertThat(e.getCount()).isEqualTo(2));
    }

    @Test
    void theAgentsRecorderWritesEveryEventRecordedBeforeItIsClosed() {
        try (EventRecorder recorder = EventRecorder.onItsOwnThread(client, Clock.fixed(T0, ZoneOffset.UTC), "agent-0")) {
            for (int i = 0; i < 5; i++) {
                recorder.node("web-" + i, EventRecorder.Reason.NodeReplacing, "Replacing node: a (commit 1)");
            }
        }

        assertThat(events()).extracting(e -> e.getInvolvedObject().getName()).containsExactlyInAnyOrder("web-0", "web-1", "web-2", "web-3", "web-4");
    }

    @Test
    void aLongNoteIsCutTo1KiBOfUtf8WithoutSplittingACharacter() {
        String note = "→".repeat(2000);
        new EventRecorder(client, Clock.fixed(T0, ZoneOffset.UTC), "agent-0").node("web-1", EventRecorder.Reason.NodeFailed, note);

        String kept = events().get(0).getMessage();
        assertThat(kept.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(EventRecorder.MAX_NOTE_BYTES);
        assertThat(kept).endsWith("…").matches("→+…");
        assertThat(EventRecorder.cut("short")).isEqualTo("short");
    }
}
