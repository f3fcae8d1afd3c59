package dev.nightshift.agent.provider.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.nightshift.agent.kube.ClusterObserver;
import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.model.ObservedNode;
import io.fabric8.kubernetes.api.model.NodeBuilder;

/**
 * How the observer reads a node that registers already labelled with its pool ({@code nightshift.dev/pool}, as an
 * adapter that passes the pool to the kubelet's {@code --node-labels} registers it) and so carries none of the marks
 * the agent writes with that label: its machine's record is the truth of its hashes and surge partner, and it is never
 * taken for a node to adopt; what the node carries itself stays authoritative; a node no machine names is read from its
 * own marks (unstamped: adopted, as any node without a machine).
 */
class PoolLabelledNodeObservationIT {

    private static final String POOL = "web";
    private static final StampedHash OLD = new StampedHash(1, "0".repeat(32));
    private static final StampedHash NEW = new StampedHash(1, "1".repeat(32));
    private static final StampedHash NEW_KUBELET = new StampedHash(1, "2".repeat(32));

    private EmbeddedKubernetes kube;
    private ClusterObserver observer;
    /** The machine API's records, as the {@code http} provider lists them; observing writes nothing. */
    private final List<ApiMachine> records = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final MachineApi api = new MachineApi() {
        @Override
        public List<ApiMachine> list(String pool) {
            return records.stream().filter(m -> m.pool().equals(pool)).toList();
        }

        @Override
        public ApiMachine create(String pool, String idempotencyKey, MachineRequest request) {
            throw new UnsupportedOperationException("observing creates nothing");
        }

        @Override
        public ApiMachine replace(String id, String idempotencyKey, MachineRequest request) {
            throw new UnsupportedOperationException("observing replaces nothing");
        }

        @Override
        public boolean delete(String id) {
            throw new UnsupportedOperationException("observing deletes nothing");
        }

        @Override
        public void update(String id, String idempotencyKey, UpdateRequest request) {
            throw new UnsupportedOperationException("observing updates nothing");
        }

        @Override
        public ApiMachine patchAnnotations(String id, Map<String, String> annotations) {
            throw new UnsupportedOperationException("observing patches nothing");
        }
    };

    @BeforeEach
    void start() throws Exception {
        kube = EmbeddedKubernetes.start(EmbeddedKubernetes.DEFAULT_GIT_VERSION);
        observer = new ClusterObserver(kube.client(), EmbeddedKubernetes.NAMESPACE, new HttpMachineProvider(api, Duration.ofHours(1)),
                () -> { });
    }

    @AfterEach
    void stop() {
        if (observer != null) {
            observer.close();
        }
        if (kube != null) {
            kube.close();
        }
    }

    @Test
    void aSurgeMachinesLabelledNodeIsReadWithItsRecordsHashesAndPartner() throws Exception {
        node("web-1", Map.of(NodeMarks.ROLL_HASH, OLD.value(), NodeMarks.ROLL_HASH_VERSION, "1"));
        node("web-new", Map.of());
        records.add(machine("m-1", "web-1", Map.of()));
        records.add(machine("m-new", "web-new", Map.of(NodeMarks.ROLL_HASH, NEW.value(), NodeMarks.ROLL_HASH_VERSION, "1",
                NodeMarks.KUBELET_HASH, NEW_KUBELET.value(), NodeMarks.KUBELET_HASH_VERSION, "1", NodeMarks.SURGE_FOR, "web-1")));

        ObservedNode surge = observed("web-new");

        assertThat(surge.registered()).isTrue();
        assertThat(surge.rollHash()).as("the record's roll hash: not unstamped, so not adopted").contains(NEW);
        assertThat(surge.kubeletHash()).contains(NEW_KUBELET);
        assertThat(surge.surgeFor()).as("the record's surge partner").contains("web-1");
    }

    @Test
    void theMarksANodeCarriesStayAuthoritative() throws Exception {
        // Re-stamped or updated by the agent after its machine was made: the node's marks are newer than the record's.
        node("web-2", Map.of(NodeMarks.ROLL_HASH, NEW.value(), NodeMarks.ROLL_HASH_VERSION, "1"));
        records.add(machine("m-2", "web-2", Map.of(NodeMarks.ROLL_HASH, OLD.value(), NodeMarks.ROLL_HASH_VERSION, "1",
                NodeMarks.SURGE_FOR, "web-0")));

        ObservedNode n = observed("web-2");

        assertThat(n.rollHash()).contains(NEW);
        assertThat(n.surgeFor()).as("a mark the node lacks still comes from the record").contains("web-0");
    }

    @Test
    void aLabelledNodeWithoutAMachineIsReadFromItsOwnMarks() throws Exception {
        node("web-3", Map.of());
        node("web-4", Map.of());
        records.add(machine("m-4", "web-4", Map.of()));

        assertThat(observed("web-3").rollHash()).as("no machine: unstamped, adopted as before").isEmpty();
        assertThat(observed("web-4").rollHash()).as("a machine without hashes: unstamped, adopted as before").isEmpty();
    }

    private void node(String name, Map<String, String> annotations) {
        kube.client().nodes().resource(new NodeBuilder().withNewMetadata().withName(name)
                .withLabels(Map.of(NodeMarks.POOL, POOL, "kubernetes.io/hostname", name)).withAnnotations(annotations).endMetadata()
                .withNewStatus().addNewCondition().withType("Ready").withStatus("True")
                .withLastTransitionTime(Instant.now().toString()).endCondition().endStatus().build()).create();
    }

    private static ApiMachine machine(String id, String node, Map<String, String> annotations) {
        return new ApiMachine(id, POOL, node, MachineState.RUNNING, Instant.now(), annotations, null);
    }

    private boolean started;

    private ObservedNode observed(String name) throws Exception {
        if (!started) {
            observer.start();
            started = true;
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> observer.node(name).isPresent());
        observer.refresh();
        List<ObservedNode> nodes = observer.observe(MaintenanceState.OPEN, true, Set.of(POOL)).nodes();
        Optional<ObservedNode> found = nodes.stream().filter(n -> n.name().equals(name)).findFirst();
        assertThat(found).as("node " + name + " observed").isPresent();
        return found.get();
    }
}
