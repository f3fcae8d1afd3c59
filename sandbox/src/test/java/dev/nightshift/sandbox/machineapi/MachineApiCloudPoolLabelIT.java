package dev.nightshift.sandbox.machineapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.random.RandomGeneratorFactory;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.nightshift.agent.provider.http.ApiMachine;
import dev.nightshift.agent.provider.http.MachineRequest;
import dev.nightshift.agent.provider.http.MachineState;
import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * The machine-API cloud playing an adapter that passes the pool to the kubelet's {@code --node-labels}
 * ({@link MachineApiCloud.Registration#WITH_POOL_LABEL}): every node it registers, seeded or created, carries
 * {@code nightshift.dev/pool} besides exactly the request's labels and taints, and still no annotations.
 */
class MachineApiCloudPoolLabelIT {

    /** What the agent asks for: the spec's labels without the pool's, the hashes and surge partner as annotations. */
    private static final MachineRequest REQUEST = new MachineRequest(Map.of("tier", "front"),
            Map.of("nightshift.dev/roll-hash", "r1", "nightshift.dev/kubelet-hash", "k1", "nightshift.dev/surge-for", "web-1"),
            List.of(new MachineRequest.Taint("dedicated", "web", "NoSchedule")), MachineApiCloudIT.SPEC);

    private final EmbeddedKubernetes cluster = EmbeddedKubernetes.start();
    private final KubernetesClient client = cluster.client();
    private final ScheduledExecutorService threads = Executors.newScheduledThreadPool(2);
    private final MachineLog log = new MachineLog(Optional.empty());

    @AfterEach
    void stop() {
        threads.shutdownNow();
        cluster.close();
    }

    private MachineApiCloud cloud(MachineApiCloud.Registration registration) {
        return new MachineApiCloud(client, threads, Clock.systemUTC(), RandomGeneratorFactory.of("L64X128MixRandom").create(3),
                MachineApiCloudIT.QUICK, log, pool -> false, registration);
    }

    @Test
    void aCreatedMachinesNodeRegistersLabelledWithItsPoolAndTheAskedLabelsAndTaintsAndNoAnnotations() {
        MachineApiCloud cloud = cloud(MachineApiCloud.Registration.WITH_POOL_LABEL);

        ApiMachine machine = cloud.create("web", "key-create-web-0001", REQUEST);

        await().atMost(Duration.ofSeconds(10)).until(() -> cloud.machine(machine.id()).map(ApiMachine::state)
                .filter(MachineState.RUNNING::equals).isPresent());
        Node node = client.nodes().withName(machine.nodeName()).get();
        assertThat(node.getMetadata().getLabels()).isEqualTo(Map.of("nightshift.dev/pool", "web", "tier", "front",
                "kubernetes.io/hostname", machine.nodeName()));
        assertThat(node.getSpec().getTaints()).extracting(t -> t.getKey() + "=" + t.getValue() + ":" + t.getEffect())
                .containsExactly("dedicated=web:NoSchedule");
        assertThat(node.getMetadata().getAnnotations()).as("the hashes and partner stay on the machine record").isNullOrEmpty();
        assertThat(cloud.machine(machine.id()).orElseThrow().annotations()).isEqualTo(REQUEST.annotations());
    }

    @Test
    void seededNodesAreLabelledWithTheirPoolToo() {
        MachineApiCloud cloud = cloud(MachineApiCloud.Registration.WITH_POOL_LABEL);

        List<ApiMachine> seeded = cloud.seed("web", 2, Map.of("tier", "front"), Map.of());

        assertThat(seeded).extracting(ApiMachine::nodeName).containsExactly("web-1", "web-2");
        assertThat(client.nodes().withName("web-1").get().getMetadata().getLabels()).isEqualTo(Map.of("nightshift.dev/pool", "web",
                "tier", "front", "kubernetes.io/hostname", "web-1"));
    }

    @Test
    void byDefaultNodesRegisterWithExactlyTheRequestsLabels() {
        MachineApiCloud cloud = cloud(MachineApiCloud.Registration.REQUEST_LABELS);

        cloud.seed("web", 1, Map.of("tier", "front"), Map.of());

        assertThat(client.nodes().withName("web-1").get().getMetadata().getLabels()).isEqualTo(Map.of("tier", "front",
                "kubernetes.io/hostname", "web-1"));
    }
}
