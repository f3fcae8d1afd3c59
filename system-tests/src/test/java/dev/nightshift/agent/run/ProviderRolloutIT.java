package dev.nightshift.agent.run;

import static dev.nightshift.agent.run.AgentHarness.annotation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.run.RolloutInvariants.Limits;
import dev.nightshift.agent.run.RolloutInvariants.Start;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import io.fabric8.kubernetes.api.model.Node;

/**
 * Rollouts with each machine provider ({@link ProviderRolloutScenario}): image bumps with and without surge, the canary
 * first, a second commit mid-rollout, and (Cluster API) a partner's Machine lost behind the agent's back.
 */
class ProviderRolloutIT extends ProviderRolloutScenario {

    @ParameterizedTest
    @EnumSource(RolloutBackend.class)
    void anImageBumpWithSurgeReplacesEveryNodeWithinTheLimits(RolloutBackend backend) throws Exception {
        Limits limits = new Limits(NODES, 1, 0);
        Start start = adopted(backend, pool("1631.0.0", 1, 0));

        push(pool("1632.0.0", 1, 0), "image bump");

        rolledOutWithin(limits, start);
        assertThat(h.nodes(POOL)).extracting(n -> n.getMetadata().getName()).as("every old node replaced")
                .doesNotContainAnyElementsOf(names(start.nodes()));
    }

    @ParameterizedTest
    @EnumSource(RolloutBackend.class)
    void anImageBumpWithoutSurgeReplacesEveryNodeOneAtATime(RolloutBackend backend) throws Exception {
        Limits limits = new Limits(NODES, 0, 1);
        Start start = adopted(backend, pool("1631.0.0", 0, 1));

        push(pool("1632.0.0", 0, 1), "image bump");

        rolledOutWithin(limits, start);
        assertThat(h.nodes(POOL)).extracting(n -> n.getMetadata().getName()).doesNotContainAnyElementsOf(names(start.nodes()));
    }

    @ParameterizedTest
    @EnumSource(RolloutBackend.class)
    void theCanaryIsAvailableBeforeASecondOldNodeIsDisrupted(RolloutBackend backend) throws Exception {
        // Wide limits: after the canary, two surge machines and one node down at a time.
        Limits limits = new Limits(NODES, 2, 1);
        Start start = adopted(backend, pool("1631.0.0", 2, 1));

        push(pool("1632.0.0", 2, 1), "image bump");

        rolledOutWithin(limits, start);
        Set<String> old = names(start.nodes());
        List<RecordedRequest> log = h.kube.requests();
        ClusterTimeline timeline = ClusterTimeline.replay(start.nodes(), log);
        ClusterTimeline.Moment canary = timeline.first(m -> m.nodes().keySet().stream()
                .anyMatch(n -> !old.contains(n) && m.readyAndSchedulable(n))).orElseThrow();
        Set<String> disrupted = new java.util.TreeSet<>();
        log.stream().filter(r -> r.sequence() <= canary.request().sequence() && SeenRequests.isCordon(r))
                .map(r -> r.resourcePath().substring("/api/v1/nodes/".length())).filter(old::contains).forEach(disrupted::add);
        surgeAsked(log, start).entrySet().stream().filter(e -> !e.getValue().isAfter(canary.request().time()))
                .forEach(e -> disrupted.add(e.getKey()));
        assertThat(disrupted).as("old nodes cordoned or given a surge machine before the first new node was available (%s)%s",
                canary, RolloutInvariants.writes(log)).hasSize(1);
    }

    @ParameterizedTest
    @EnumSource(RolloutBackend.class)
    void aSecondCommitMidRolloutBringsEveryMachineToTheSecondSpec(RolloutBackend backend) throws Exception {
        Limits limits = new Limits(NODES, 1, 0);
        Start start = adopted(backend, pool("1631.0.0", 1, 0));

        push(pool("1632.0.0", 1, 0), "image bump");
        String first = await("a node at the first bump's hash").atMost(ROLLOUT).pollInterval(Duration.ofMillis(20))
                .until(() -> h.nodes(POOL).stream().map(ProviderRolloutScenario::rollHash)
                        .filter(hash -> !hash.isEmpty() && !hash.equals(start.oldRollHash())).findFirst().orElse(null), x -> x != null);
        push(pool("1633.0.0", 1, 0), "a second image bump before the first is rolled out");

        String last = rolledOutWithin(limits, start);
        assertThat(last).as("every node at the second commit's hash").isNotEqualTo(first);
    }

    /**
     * Cluster API: a partner's Machine deleted behind the agent's back (a MachineHealthCheck) while its stand-in runs
     * and its drain waits on a budget. Cluster API replaces the Machine, so the stand-in is one too many; it stands in
     * for the next outdated Machine instead, which leaves in its place, and the pool ends at its size (seeds 12 and 38
     * of the long profile ended one Machine larger).
     */
    @org.junit.jupiter.api.Test
    void aStandInWhosePartnerIsLostBehindTheAgentsBackTakesTheNextOldMachinesPlaceAndThePoolKeepsItsSize() throws Exception {
        Limits limits = new Limits(NODES, 1, 0);
        Start start = adopted(RolloutBackend.CLUSTER_API, pool("1631.0.0", 1, 0));
        budget(0);

        push(pool("1632.0.0", 1, 0), "image bump");
        Node partner = await("a partner draining, its stand-in Ready").atMost(ROLLOUT).pollInterval(Duration.ofMillis(50)).until(() -> {
            Set<String> standingIn = h.nodes(POOL).stream().filter(n -> !annotation(n, NodeMarks.SURGE_FOR).isEmpty())
                    .filter(n -> n.getStatus().getConditions().stream().anyMatch(c -> c.getType().equals("Ready")
                            && c.getStatus().equals("True"))).map(n -> annotation(n, NodeMarks.SURGE_FOR)).collect(Collectors.toSet());
            return h.nodes(POOL).stream().filter(n -> standingIn.contains(n.getMetadata().getName())
                    && !annotation(n, NodeMarks.DRAIN_STARTED_AT).isEmpty()).findFirst().orElse(null);
        }, n -> n != null);
        losePartnerThenRollOut(partner, limits, start);
    }

    /**
     * Cluster API, long-profile seed 36: every old Machine has a stand-in ({@code maxSurge} as large as the pool, in one
     * wave) when a partner's Machine is deleted behind the agent's back. No outdated Machine is left to give its stand-in
     * to, so it stands in for a registered Machine of the current MachineSet (Cluster API's replacement of the lost one),
     * which is drained and leaves by a lowering once the old MachineSet is empty: the pool ends at its size, not one larger.
     */
    @org.junit.jupiter.api.Test
    void aStandInWhosePartnerIsLostWhenEveryOldMachineHasOneStandsInForACurrentMachineAndThePoolKeepsItsSize() throws Exception {
        Limits limits = new Limits(NODES, NODES, 0);
        String oneWave = "  rollout: {waves: [\"100%\"]}\n";
        Start start = adopted(RolloutBackend.CLUSTER_API, pool("1631.0.0", NODES, 0) + oneWave);
        budget(0);

        push(pool("1632.0.0", NODES, 0) + oneWave, "image bump");
        Node partner = await("every partner draining, each stand-in Ready").atMost(ROLLOUT).pollInterval(Duration.ofMillis(50)).until(() -> {
            Set<String> standingIn = h.nodes(POOL).stream().filter(n -> !annotation(n, NodeMarks.SURGE_FOR).isEmpty())
                    .filter(n -> n.getStatus().getConditions().stream().anyMatch(c -> c.getType().equals("Ready")
                            && c.getStatus().equals("True"))).map(n -> annotation(n, NodeMarks.SURGE_FOR)).collect(Collectors.toSet());
            List<Node> draining = h.nodes(POOL).stream().filter(n -> standingIn.contains(n.getMetadata().getName())
                    && !annotation(n, NodeMarks.DRAIN_STARTED_AT).isEmpty()).sorted(java.util.Comparator.comparing(n -> n.getMetadata().getName()))
                    .toList();
            return draining.size() == NODES ? draining.get(0) : null;
        }, n -> n != null);
        losePartnerThenRollOut(partner, limits, start);
    }

    /**
     * Deletes {@code partner}'s Machine behind the agent's back (as a MachineHealthCheck would), lets drains go on, and
     * checks from the request log that the rollout ends with the pool and its MachineDeployment at their size.
     */
    private void losePartnerThenRollOut(Node partner, Limits limits, Start start) {
        String lost = partner.getMetadata().getName();
        // Deleted without Cluster API's own drain, which the budget would block as it blocks the agent's.
        var machine = h.kube.client().genericKubernetesResources(dev.nightshift.sandbox.capi.ClusterApiResources.MACHINES)
                .inNamespace(dev.nightshift.sandbox.embedded.EmbeddedKubernetes.NAMESPACE).withName(annotation(partner, "cluster.x-k8s.io/machine"));
        machine.edit(m -> {
            m.getMetadata().getAnnotations().put("machine.cluster.x-k8s.io/exclude-node-draining", "true");
            return m;
        });
        machine.delete();
        await("the lost partner's node gone").atMost(ROLLOUT).until(() -> h.kube.client().nodes().withName(lost).get() == null);
        budget(1);

        try {
            await("the rollout's end").atMost(ROLLOUT).pollInterval(Duration.ofMillis(100))
                    .untilAsserted(() -> RolloutInvariants.assertRolledOut(h, POOL, limits, start));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(e.getMessage() + "\nthe agent's /status: " + h.agent.status(), e);
        }
        RolloutInvariants.assertHeld(h, POOL, limits, start, Set.of(lost));
        JsonNode md = JSON.valueToTree(h.kube.client().genericKubernetesResources(dev.nightshift.sandbox.capi.ClusterApiResources.MACHINE_DEPLOYMENTS)
                .inNamespace(dev.nightshift.sandbox.embedded.EmbeddedKubernetes.NAMESPACE).list().getItems().get(0));
        assertThat(md.at("/spec/replicas").asInt()).as("the MachineDeployment at the pool's size").isEqualTo(NODES);
    }
}
