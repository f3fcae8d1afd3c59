package dev.nightshift.agent.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import io.fabric8.kubernetes.api.model.PodBuilder;

/** Nodes that ran before Nightshift (no hashes) are adopted, not rolled: what the cluster saw of it. */
class AdoptionIT {

    /** Rolled by surge or by taking a node out, had adoption mistaken the nodes for outdated ones. */
    private static final ScenarioSpecs.Pool WEB = ScenarioSpecs.web().with("maximum", "4").with("maxSurge", "1")
            .with("maxUnavailable", "1").with("interval", "0s");

    @TempDir
    Path tmp;

    @AutoClose
    private AgentHarness h;

    @Test
    void nodesWithoutHashesAreAdoptedWithoutCordonEvictionOrMachineChange() throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", 3);
        for (int i = 1; i <= 3; i++) {
            // Pods no budget protects: an eviction, had one been asked for, would have gone through.
            h.kube.client().pods().inNamespace("shop").resource(new PodBuilder().withNewMetadata().withName("app-" + i)
                    .withNamespace("shop").endMetadata().withNewSpec().withNodeName("web-" + i).addNewContainer().withName("app")
                    .withImage("app").endContainer().endSpec().withNewStatus().withPhase("Running").endStatus().build()).create();
        }
        h.push("initial", ScenarioSpecs.CLUSTER, WEB);
        h.kube.clearRequests();

        h.startAgent("e2e");
        h.awaitAdopted("web", 3);
        // Time for a roll to begin, had adoption mistaken the nodes for outdated ones.
        h.idleThroughReconciles("web-1", 3);

        List<RecordedRequest> log = h.kube.requests();
        assertThat(log).as("the agent stamped each node: the log holds the adoption")
                .filteredOn(r -> r.userAgent().equals(AgentHarness.AGENT) && r.method().equals("PATCH") && r.succeeded()
                        && r.body().contains(NodeMarks.ROLL_HASH))
                .extracting(RecordedRequest::resourcePath).containsOnly("/api/v1/nodes/web-1", "/api/v1/nodes/web-2", "/api/v1/nodes/web-3");
        assertThat(log).as("no node cordoned").noneMatch(SeenRequests::isCordon);
        assertThat(log).as("no pod evicted or deleted")
                .noneMatch(r -> r.resourcePath().endsWith("/eviction"))
                .noneMatch(r -> r.method().equals("DELETE") && r.resourcePath().startsWith("/api/v1/namespaces/shop/pods"));
        assertThat(log).as("no machine deleted or created")
                .noneMatch(r -> r.resourcePath().startsWith("/api/v1/nodes") && (r.method().equals("DELETE") || r.method().equals("POST")));
        assertThat(h.nodes("web")).extracting(n -> n.getMetadata().getName()).containsExactlyInAnyOrder("web-1", "web-2", "web-3");
    }
}
