package dev.nightshift.agent.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.sandbox.embedded.Kubectl;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;

/**
 * "Why is this node being replaced?" answered from the cluster: after an image bump, {@code /status}
 * names the pushed commit and the changed field, the replaced nodes' Events (read with the real
 * kubectl) say the same with the commit's short hash, and a restarted agent still says it.
 */
class WhyIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Replaced one node at a time; a drain a budget blocks waits, and says so, rather than deleting the pod. */
    private static final ScenarioSpecs.Pool WEB = ScenarioSpecs.web().surgingOneAtATime()
            .with("machineControllerManager", "{onEvictionBlocked: Wait}");

    @TempDir
    Path tmp;

    @AutoClose
    private AgentHarness h;

    private JsonNode webStatus() throws Exception {
        for (JsonNode p : JSON.readTree(h.http("/status")).path("pools")) {
            if (p.path("pool").asText().equals("web")) {
                return p;
            }
        }
        return JSON.createObjectNode();
    }

    private static void assertImageReason(JsonNode target, String commit, String from, String to) {
        assertThat(target.path("revision").asText()).isEqualTo(commit);
        assertThat(target.path("action").asText()).isEqualTo("ROLL");
        assertThat(target.path("reasons")).anySatisfy(r -> {
            assertThat(r.path("path").asText()).isEqualTo("spec.machine.image.version");
            assertThat(r.path("old").asText()).isEqualTo(from);
            assertThat(r.path("new").asText()).isEqualTo(to);
            assertThat(r.path("effect").asText()).isEqualTo("roll");
        });
    }

    /** {@code kubectl get events -n default}, one line per Event: object, reason, count, message. */
    private List<String> kubectlEvents() throws Exception {
        Path work = Files.createDirectories(tmp.resolve("kubectl"));
        Kubectl.Run run = Kubectl.run(work, h.kube.writeKubeconfig(work.resolve("kubeconfig")), "get", "events", "-n", "default",
                "-o", "custom-columns=OBJECT:.involvedObject.name,REASON:.reason,COUNT:.count,REPORTER:.reportingComponent,MESSAGE:.message");
        assertThat(run.exitCode()).as("kubectl get events: %s", run.stderr()).isZero();
        return run.stdout().lines().skip(1).toList();
    }

    private void start(int nodes) throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", nodes);
        h.startAndAdopt(ScenarioSpecs.CLUSTER, WEB, nodes);
        // Fully current at 1631.0.0 once the agent says so: the spec a later target's reasons start from.
        // The record comes after adoption's last write, in the same pass's record stage: absent for a moment.
        await().atMost(Duration.ofSeconds(30)).until(() -> java.util.Optional.ofNullable(h.kube.client().configMaps()
                .inNamespace(Agent.NAMESPACE).withName("nightshift-pool-web").get()).map(ConfigMap::getData)
                .filter(d -> d.containsKey("fullyCurrentPool")).isPresent());
    }

    @Test
    void anImageBumpIsExplainedInStatusAndOnTheReplacedNodesAndAfterARestart() throws Exception {
        start(3);
        List<String> old = h.nodes("web").stream().map(n -> n.getMetadata().getName()).toList();

        String bump = h.push("image bump", WEB.withImage("1632.0.0"));
        await().atMost(Duration.ofSeconds(120)).until(() -> h.nodes("web").size() == 3
                && h.nodes("web").stream().map(n -> n.getMetadata().getName()).noneMatch(old::contains)
                && webStatus().path("phase").asText().equals("CURRENT"));

        assertImageReason(webStatus().path("target"), bump, "1631.0.0", "1632.0.0");
        List<String> events = kubectlEvents();
        String why = "Replacing node: spec.machine.image.version 1631.0.0 → 1632.0.0 (commit " + bump.substring(0, 7) + ")";
        for (String node : old) {
            assertThat(events).as("the Events kubectl shows for %s", node)
                    .anySatisfy(e -> assertThat(e).startsWith(node + " ").contains("NodeReplacing").contains("nightshift").endsWith(why));
        }

        h.stopAgent();
        h.startAgent("e2e");
        await().atMost(Duration.ofSeconds(30)).until(() -> !webStatus().path("target").isMissingNode()
                && !webStatus().path("target").isNull());
        assertImageReason(webStatus().path("target"), bump, "1631.0.0", "1632.0.0");
    }

    @Test
    void aSecondPushMidRolloutShowsTheReasonsFromTheLastFullyCurrentSpec() throws Exception {
        start(2);
        // The first node's drain is held by a budget: the 1632.0.0 rollout cannot finish.
        h.kube.client().pods().inNamespace("shop").resource(new PodBuilder().withNewMetadata().withName("db-0").withNamespace("shop")
                .addToLabels("app", "db").endMetadata().withNewSpec().withNodeName("web-1").addNewContainer().withName("db")
                .withImage("db").endContainer().endSpec().withNewStatus().withPhase("Running").endStatus().build()).create();
        h.kube.client().policy().v1().podDisruptionBudget().inNamespace("shop").resource(new PodDisruptionBudgetBuilder()
                .withNewMetadata().withName("db-pdb").withNamespace("shop").endMetadata().withNewSpec()
                .withMaxUnavailable(new IntOrString(0)).withNewSelector().addToMatchLabels("app", "db").endSelector().endSpec()
                .build()).create();

        String b = h.push("to 1632", WEB.withImage("1632.0.0"));
        await().atMost(Duration.ofSeconds(60)).until(() -> webStatus().path("blockedDrains").size() > 0);
        assertImageReason(webStatus().path("target"), b, "1631.0.0", "1632.0.0");

        String c = h.push("to 1633", WEB.withImage("1633.0.0"));
        await().atMost(Duration.ofSeconds(60)).until(() -> webStatus().path("target").path("revision").asText().equals(c));
        assertImageReason(webStatus().path("target"), c, "1631.0.0", "1633.0.0");
        Node held = h.kube.client().nodes().withName("web-1").get();
        assertThat(AgentHarness.annotation(held, NodeMarks.DRAIN_STARTED_AT)).as("web-1 was mid-rollout when C came").isNotEmpty();

        // Kept in the pool's record: a restarted agent says the same.
        h.stopAgent();
        h.startAgent("e2e");
        await().atMost(Duration.ofSeconds(30)).until(() -> webStatus().path("target").path("revision").asText().equals(c));
        assertImageReason(webStatus().path("target"), c, "1631.0.0", "1633.0.0");
    }
}
