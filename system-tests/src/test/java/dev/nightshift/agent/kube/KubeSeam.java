package dev.nightshift.agent.kube;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;

import dev.nightshift.agent.TestClusters;
import dev.nightshift.sandbox.cloud.SimulatedMachineProvider;
import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;

/**
 * The agent's Kubernetes seam on its own, in process: the embedded API server, the simulated cloud,
 * a {@link ClusterObserver} and a {@link StepExecutor} on one clock, with one seeded node
 * {@value #NODE} of pool {@value #POOL}. The observer is started by {@link #startObserving()}, so
 * a test can arrange the cluster first.
 */
final class KubeSeam implements AutoCloseable {

    static final String NODE = "web-1";
    static final String POOL = "web";

    final EmbeddedKubernetes kube;
    final SimulatedMachineProvider provider;
    final ClusterObserver observer;
    final StepExecutor executor;
    private final ScheduledExecutorService cloud;
    private final Evictor evictor;
    private final Clock clock;
    /** The executor's own client: the request log tells its writes from the cloud's and the test's by its User-Agent. */
    private final io.fabric8.kubernetes.client.KubernetesClient agentClient;
    static final String AGENT = "nightshift-executor-under-test";

    KubeSeam(Clock clock, SimulatedMachineProvider.Behaviour behaviour, StampedHash roll, StampedHash kubelet) {
        kube = EmbeddedKubernetes.start();
        cloud = Executors.newSingleThreadScheduledExecutor();
        provider = new SimulatedMachineProvider(kube.client(), cloud, clock, new Random(1), pool -> false, behaviour);
        provider.seed(POOL, NODE, Optional.of(roll), Optional.of(kubelet));
        observer = new ClusterObserver(kube.client(), "nightshift-system", provider, () -> { }, clock);
        agentClient = new io.fabric8.kubernetes.client.KubernetesClientBuilder().withConfig(
                new io.fabric8.kubernetes.client.ConfigBuilder(kube.config()).withUserAgent(AGENT).build()).build();
        evictor = new Evictor(agentClient.getConfiguration());
        this.clock = clock;
        executor = new StepExecutor(agentClient, evictor, observer, provider, provider, clock,
                new EventRecorder(agentClient, clock, EventRecorder.COMPONENT));
    }

    /** Another executor on the same seam whose drain passes run where {@code drains} runs them (the agent's: off its thread). */
    StepExecutor executorWith(DrainPasses drains) {
        return new StepExecutor(agentClient, evictor, observer, provider, provider, clock,
                new EventRecorder(agentClient, clock, EventRecorder.COMPONENT), new dev.nightshift.agent.health.EvictedWorkloads(), drains);
    }

    /** A cloud whose delays (registration, in-place update, kubelet restart) never run out during a test. */
    static SimulatedMachineProvider.Behaviour slowCloud() {
        Duration never = Duration.ofHours(1);
        return new SimulatedMachineProvider.Behaviour(never, never, never, 0, 0);
    }

    void startObserving() throws Exception {
        observer.start();
    }

    /** Changes the seeded node as another client would. */
    void edit(Consumer<Node> change) {
        kube.client().nodes().withName(NODE).edit(n -> {
            change.accept(n);
            return n;
        });
    }

    /** A running pod of app {@code app} in namespace {@code shop} on the seeded node. */
    void pod(String name, String app) {
        kube.client().pods().inNamespace("shop").resource(new PodBuilder().withNewMetadata().withName(name).withNamespace("shop")
                .addToLabels("app", app).endMetadata().withNewSpec().withNodeName(NODE).addNewContainer().withName("c")
                .withImage("c").endContainer().endSpec().withNewStatus().withPhase("Running").endStatus().build()).create();
    }

    /** A budget that allows no disruption of app {@code app}'s pods. */
    void noDisruptionOf(String app) {
        kube.client().policy().v1().podDisruptionBudget().inNamespace("shop").resource(new PodDisruptionBudgetBuilder()
                .withNewMetadata().withName(app + "-pdb").withNamespace("shop").endMetadata().withNewSpec()
                .withMaxUnavailable(new IntOrString(0)).withNewSelector().addToMatchLabels("app", app).endSelector().endSpec()
                .build()).create();
    }

    /** The requests that changed something (all but GET and WATCH), after those before {@link EmbeddedKubernetes#clearRequests()}. */
    /** The executor's writes (the simulated cloud writes too, on its own threads, as a cloud would). */
    List<RecordedRequest> writes() {
        return kube.requests().stream().filter(r -> r.isWrite() && AGENT.equals(r.userAgent())).toList();
    }

    Node node() {
        return kube.client().nodes().withName(NODE).get();
    }

    /** The pool's machines as the observer reads them now. */
    List<ObservedNode> observed() {
        return observer.observe(MaintenanceState.OPEN, true, Set.of(POOL)).nodes();
    }

    /** The seeded node as the observer reads it now. */
    ObservedNode observedNode() {
        return observed().stream().filter(n -> n.name().equals(NODE)).findFirst().orElseThrow();
    }

    @Override
    public void close() {
        observer.close();
        evictor.close();
        cloud.shutdownNow();
        try {
            // A write of the cloud's still under way when the server stops stalls the mock server's shutdown.
            cloud.awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        agentClient.close();
        kube.close();
    }
}
