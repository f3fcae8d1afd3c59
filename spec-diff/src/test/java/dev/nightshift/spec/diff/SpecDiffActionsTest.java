package dev.nightshift.spec.diff;

import static dev.nightshift.spec.diff.Decisions.decide;
import static dev.nightshift.spec.hash.TestSpecs.CLUSTER;
import static dev.nightshift.spec.hash.TestSpecs.IN_PLACE;
import static dev.nightshift.spec.hash.TestSpecs.ROLLING;
import static dev.nightshift.spec.hash.TestSpecs.edit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import dev.nightshift.spec.hash.HashScheme;
import dev.nightshift.spec.hash.TestSpecs;

/** Which action each kind of change gives, the precedence between them, and that every reason is listed. */
class SpecDiffActionsTest {

    private static final String IMAGE_1631 = "image: {name: gardenlinux, version: 1631.0.0}";
    private static final String IMAGE_1632 = "image: {name: gardenlinux, version: 1632.0.0}";
    private static final String K8S_1_31_4 = "version: \"1.31.4\"";
    private static final String K8S_1_31_5 = "version: \"1.31.5\"";

    @Test
    void identicalSpecsGiveNoneWithoutReasons() {
        PoolDecision d = decide(ROLLING, ROLLING);

        assertThat(d.action()).isEqualTo(PoolAction.NONE);
        assertThat(d.reasons()).isEmpty();
        assertThat(d.rollHashNew()).isEqualTo(d.rollHashOld());
        assertThat(d.kubeletHashNew()).isEqualTo(d.kubeletHashOld());
    }

    @Test
    void aDecisionCarriesBothHashesOfBothSides() {
        String changed = edit(ROLLING, IMAGE_1631, IMAGE_1632);

        PoolDecision d = decide(ROLLING, changed);

        assertThat(d.cluster()).isEqualTo("prod");
        assertThat(d.pool()).isEqualTo("web");
        assertThat(d.rollHashOld()).contains(HashScheme.ROLL.compute(TestSpecs.web(ROLLING)));
        assertThat(d.rollHashNew()).contains(HashScheme.ROLL.compute(TestSpecs.web(changed)));
        assertThat(d.kubeletHashOld()).contains(HashScheme.KUBELET.compute(TestSpecs.web(ROLLING)));
        assertThat(d.kubeletHashNew()).contains(HashScheme.KUBELET.compute(TestSpecs.web(changed)));
        assertThat(d.forceTokenUsed()).isEmpty();
    }

    @Nested
    class Roll {

        @Test
        void anImageVersionChangeRollsAnAutoRollingUpdatePool() {
            PoolDecision d = decide(ROLLING, edit(ROLLING, IMAGE_1631, IMAGE_1632));

            assertThat(d.action()).isEqualTo(PoolAction.ROLL);
            assertThat(d.reasons()).extracting(Reason::path, Reason::oldValue, Reason::newValue, Reason::effect)
                    .containsExactly(tuple("spec.machine.image.version", "1631.0.0", "1632.0.0", Effect.ROLL));
        }

        @Test
        void anImageVersionChangeRollsAReplacePool() {
            String replace = edit(ROLLING, "updateStrategy: AutoRollingUpdate", "updateStrategy: Replace");

            PoolDecision d = decide(replace, edit(replace, IMAGE_1631, IMAGE_1632));

            assertThat(d.action()).isEqualTo(PoolAction.ROLL);
            assertThat(d.reasons()).extracting(Reason::path, Reason::effect)
                    .containsExactly(tuple("spec.machine.image.version", Effect.ROLL));
        }

        @Test
        void aMachineTypeChangeRollsARollingPool() {
            PoolDecision d = decide(ROLLING, edit(ROLLING, "type: m5.large", "type: m5.xlarge"));

            assertThat(d.action()).isEqualTo(PoolAction.ROLL);
            assertThat(d.reasons()).extracting(Reason::path, Reason::oldValue, Reason::newValue, Reason::effect)
                    .containsExactly(tuple("spec.machine.type", "m5.large", "m5.xlarge", Effect.ROLL));
        }

        @Test
        void aMinorUpgradeRollsAndAlsoListsTheKubeletChange() {
            PoolDecision d = decide(ROLLING, edit(ROLLING, K8S_1_31_4, "version: \"1.32.0\""));

            assertThat(d.action()).isEqualTo(PoolAction.ROLL);
            assertThat(d.reasons()).extracting(Reason::path, Reason::oldValue, Reason::newValue, Reason::effect)
                    .containsExactlyInAnyOrder(
                            tuple("spec.kubernetes.version(minor)", "1.31", "1.32", Effect.ROLL),
                            tuple("spec.kubernetes.version", "1.31.4", "1.32.0", Effect.KUBELET_RESTART));
        }

        @Test
        void anEvictionThresholdChangeRollsAndAlsoListsTheKubeletChange() {
            PoolDecision d = decide(ROLLING, edit(ROLLING, "memory.available: 100Mi", "memory.available: 200Mi"));

            assertThat(d.action()).isEqualTo(PoolAction.ROLL);
            assertThat(d.reasons()).extracting(Reason::path, Reason::effect).containsExactlyInAnyOrder(
                    tuple("spec.kubernetes.kubelet.evictionHard", Effect.ROLL),
                    tuple("spec.kubernetes.kubelet.evictionHard", Effect.KUBELET_RESTART));
        }

        @Test
        void aCertificateAuthorityRotationRollsEveryPool() {
            PoolDecision d = decide(ROLLING, edit(ROLLING, "certificateAuthorities:\n        lastInitiationTime: \"2026-01-01T00:00:00Z\"",
                    "certificateAuthorities:\n        lastInitiationTime: \"2026-02-01T00:00:00Z\""));

            assertThat(d.action()).isEqualTo(PoolAction.ROLL);
            assertThat(d.reasons()).extracting(Reason::path, Reason::oldValue, Reason::newValue, Reason::effect)
                    .containsExactly(tuple("cluster.spec.credentials.rotation.certificateAuthorities.lastInitiationTime",
                            "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z", Effect.ROLL));
        }
    }

    @Nested
    class InPlace {

        @Test
        void anAllowedImageVersionChangeUpdatesAnAutoInPlacePoolInPlace() {
            PoolDecision d = decide(IN_PLACE, edit(IN_PLACE, IMAGE_1631, IMAGE_1632));

            assertThat(d.action()).isEqualTo(PoolAction.IN_PLACE);
            assertThat(d.reasons()).extracting(Reason::path, Reason::oldValue, Reason::newValue, Reason::effect)
                    .containsExactly(tuple("spec.machine.image.version", "1631.0.0", "1632.0.0", Effect.IN_PLACE));
        }

        @Test
        void anAllowedImageVersionChangeUpdatesAManualInPlacePoolInPlace() {
            String manual = edit(IN_PLACE, "updateStrategy: AutoInPlaceUpdate", "updateStrategy: ManualInPlaceUpdate");

            PoolDecision d = decide(manual, edit(manual, IMAGE_1631, IMAGE_1632));

            assertThat(d.action()).isEqualTo(PoolAction.IN_PLACE);
            assertThat(d.reasons()).extracting(Reason::path, Reason::effect)
                    .containsExactly(tuple("spec.machine.image.version", Effect.IN_PLACE));
        }

        @Test
        void aProviderConfigChangeUpdatesAnInPlacePoolInPlace() {
            PoolDecision d = decide(IN_PLACE, edit(IN_PLACE, "iops: 3000", "iops: 6000"));

            assertThat(d.action()).isEqualTo(PoolAction.IN_PLACE);
            assertThat(d.reasons()).extracting(Reason::path, Reason::effect)
                    .containsExactly(tuple("spec.providerConfig", Effect.IN_PLACE));
        }

        @Test
        void aMinorUpgradeUpdatesAnInPlacePoolInPlace() {
            PoolDecision d = decide(IN_PLACE, edit(IN_PLACE, K8S_1_31_4, "version: \"1.32.1\""));

            assertThat(d.action()).isEqualTo(PoolAction.IN_PLACE);
            assertThat(d.reasons()).extracting(Reason::path, Reason::effect).containsExactlyInAnyOrder(
                    tuple("spec.kubernetes.version(minor)", Effect.IN_PLACE),
                    tuple("spec.kubernetes.version", Effect.KUBELET_RESTART));
        }
    }

    @Nested
    class KubeletRestart {

        @Test
        void aPatchReleaseRestartsTheKubelet() {
            PoolDecision d = decide(ROLLING, edit(ROLLING, K8S_1_31_4, K8S_1_31_5));

            assertThat(d.action()).isEqualTo(PoolAction.KUBELET_RESTART);
            assertThat(d.reasons()).extracting(Reason::path, Reason::oldValue, Reason::newValue, Reason::effect)
                    .containsExactly(tuple("spec.kubernetes.version", "1.31.4", "1.31.5", Effect.KUBELET_RESTART));
        }

        @Test
        void aPatchReleaseRestartsTheKubeletOfAnInPlacePoolToo() {
            PoolDecision d = decide(IN_PLACE, edit(IN_PLACE, K8S_1_31_4, K8S_1_31_5));

            assertThat(d.action()).isEqualTo(PoolAction.KUBELET_RESTART);
        }

        @Test
        void movingAReservationWithTheSameSumRestartsTheKubelet() {
            String moved = edit(edit(ROLLING, "kubeReserved: {cpu: 80m, memory: 1Gi}", "kubeReserved: {cpu: 80m, memory: 512Mi}"),
                    "systemReserved: {memory: 512Mi}", "systemReserved: {memory: 1Gi}");

            PoolDecision d = decide(ROLLING, moved);

            assertThat(d.action()).isEqualTo(PoolAction.KUBELET_RESTART);
            assertThat(d.reasons()).extracting(Reason::path, Reason::effect).containsExactlyInAnyOrder(
                    tuple("spec.kubernetes.kubelet.kubeReserved", Effect.KUBELET_RESTART),
                    tuple("spec.kubernetes.kubelet.systemReserved", Effect.KUBELET_RESTART));
        }
    }

    @Nested
    class Propagate {

        @Test
        void aNewLabelIsPropagated() {
            PoolDecision d = decide(ROLLING, edit(ROLLING, "labels: {tier: frontend}", "labels: {tier: frontend, team: web}"));

            assertThat(d.action()).isEqualTo(PoolAction.PROPAGATE);
            assertThat(d.reasons()).extracting(Reason::path, Reason::oldValue, Reason::newValue, Reason::effect)
                    .containsExactly(tuple("spec.labels.team", "", "web", Effect.PROPAGATE));
        }

        @Test
        void aRemovedLabelIsPropagated() {
            PoolDecision d = decide(ROLLING, edit(ROLLING, "labels: {tier: frontend}", "labels: {}"));

            assertThat(d.action()).isEqualTo(PoolAction.PROPAGATE);
            assertThat(d.reasons()).extracting(Reason::path, Reason::oldValue, Reason::newValue, Reason::effect)
                    .containsExactly(tuple("spec.labels.tier", "frontend", "", Effect.PROPAGATE));
        }

        @Test
        void aLabelSetToTheEmptyStringIsPropagated() {
            PoolDecision d = decide(ROLLING, edit(ROLLING, "labels: {tier: frontend}", "labels: {tier: frontend, gpu: \"\"}"));

            assertThat(d.action()).isEqualTo(PoolAction.PROPAGATE);
            assertThat(d.reasons()).extracting(Reason::path, Reason::effect)
                    .containsExactly(tuple("spec.labels.gpu", Effect.PROPAGATE));
        }

        @Test
        void aTaintValueChangeIsPropagated() {
            PoolDecision d = decide(ROLLING, edit(ROLLING, "value: web", "value: api"));

            assertThat(d.action()).isEqualTo(PoolAction.PROPAGATE);
            assertThat(d.reasons()).extracting(Reason::path, Reason::oldValue, Reason::newValue, Reason::effect)
                    .containsExactly(tuple("spec.taints.dedicated:NoSchedule", "dedicated=web:NoSchedule", "dedicated=api:NoSchedule",
                            Effect.PROPAGATE));
        }

        @Test
        void aTaintEffectChangeIsPropagated() {
            PoolDecision d = decide(ROLLING, edit(ROLLING, "effect: NoSchedule", "effect: NoExecute"));

            assertThat(d.action()).isEqualTo(PoolAction.PROPAGATE);
            assertThat(d.reasons()).extracting(Reason::path, Reason::effect).containsExactlyInAnyOrder(
                    tuple("spec.taints.dedicated:NoSchedule", Effect.PROPAGATE),
                    tuple("spec.taints.dedicated:NoExecute", Effect.PROPAGATE));
        }

        @Test
        void anAnnotationChangeIsPropagated() {
            PoolDecision d = decide(ROLLING, edit(ROLLING, "annotations: {owner: team-web}", "annotations: {owner: team-api}"));

            assertThat(d.action()).isEqualTo(PoolAction.PROPAGATE);
            assertThat(d.reasons()).extracting(Reason::path, Reason::oldValue, Reason::newValue, Reason::effect)
                    .containsExactly(tuple("metadata.annotations.owner", "team-web", "team-api", Effect.PROPAGATE));
        }

        @Test
        void aChangeOfOnlyAControlAnnotationIsNotAPropagation() {
            PoolDecision d = decide(ROLLING, edit(ROLLING, "annotations: {owner: team-web}",
                    "annotations: {owner: team-web, nightshift.dev/rollout-outside-window: \"true\"}"));

            assertThat(d.action()).isEqualTo(PoolAction.NONE);
            assertThat(d.reasons()).extracting(Reason::path, Reason::oldValue, Reason::newValue, Reason::effect)
                    .containsExactly(tuple("metadata.annotations.nightshift.dev/rollout-outside-window", "", "true", Effect.NONE));
        }

        @Test
        void aControlAnnotationChangedWithAnotherAnnotationLeavesOnlyTheOtherAPropagation() {
            PoolDecision d = decide(ROLLING, edit(ROLLING, "annotations: {owner: team-web}",
                    "annotations: {owner: team-api, nightshift.dev/rollout-outside-window: \"true\"}"));

            assertThat(d.action()).isEqualTo(PoolAction.PROPAGATE);
            assertThat(d.reasons()).extracting(Reason::path, Reason::effect).containsExactlyInAnyOrder(
                    tuple("metadata.annotations.owner", Effect.PROPAGATE),
                    tuple("metadata.annotations.nightshift.dev/rollout-outside-window", Effect.NONE));
        }
    }

    static Stream<Arguments> fieldsThatChangeOnlyHowNightshiftUpdates() {
        return Stream.of(
                Arguments.of("minimum", "minimum: 3", "minimum: 2", List.of("spec.minimum")),
                Arguments.of("maximum", "maximum: 6", "maximum: 9", List.of("spec.maximum")),
                Arguments.of("maxSurge", "maxSurge: 1", "maxSurge: \"50%\"", List.of("spec.maxSurge")),
                Arguments.of("maxUnavailable", "maxUnavailable: 0", "maxUnavailable: 1", List.of("spec.maxUnavailable")),
                Arguments.of("AutoRollingUpdate to Replace", "updateStrategy: AutoRollingUpdate", "updateStrategy: Replace",
                        List.of("spec.updateStrategy")),
                Arguments.of("role", "minimum: 3", "role: bastion\n  minimum: 3", List.of("spec.role")),
                Arguments.of("minReadySeconds", "minReadySeconds: 0", "minReadySeconds: 60", List.of("spec.minReadySeconds")),
                Arguments.of("progressDeadlineSeconds", "minReadySeconds: 0", "minReadySeconds: 0\n  progressDeadlineSeconds: 9000",
                        List.of("spec.progressDeadlineSeconds")),
                Arguments.of("interval", "interval: 15s", "interval: 1m", List.of("spec.interval")),
                Arguments.of("drainAndTerminate", "drainAndTerminate: true", "drainAndTerminate: false", List.of("spec.drainAndTerminate")),
                Arguments.of("drainTimeout", "drainTimeout: 2h", "drainTimeout: 3h",
                        List.of("spec.machineControllerManager.drainTimeout", "spec.progressDeadlineSeconds")),
                Arguments.of("healthTimeout", "healthTimeout: 10m", "healthTimeout: 20m", List.of("spec.machineControllerManager.healthTimeout")),
                Arguments.of("creationTimeout", "creationTimeout: 10m", "creationTimeout: 15m",
                        List.of("spec.machineControllerManager.creationTimeout", "spec.progressDeadlineSeconds")),
                Arguments.of("inPlaceUpdateTimeout", "inPlaceUpdateTimeout: 30m", "inPlaceUpdateTimeout: 45m",
                        List.of("spec.machineControllerManager.inPlaceUpdateTimeout")),
                Arguments.of("maxEvictRetries", "inPlaceUpdateTimeout: 30m}", "inPlaceUpdateTimeout: 30m, maxEvictRetries: 3}",
                        List.of("spec.machineControllerManager.maxEvictRetries")),
                Arguments.of("onEvictionBlocked", "inPlaceUpdateTimeout: 30m}", "inPlaceUpdateTimeout: 30m, onEvictionBlocked: Wait}",
                        List.of("spec.machineControllerManager.onEvictionBlocked")),
                Arguments.of("nodeConditions", "inPlaceUpdateTimeout: 30m}", "inPlaceUpdateTimeout: 30m, nodeConditions: [DiskPressure]}",
                        List.of("spec.machineControllerManager.nodeConditions")),
                Arguments.of("disableHealthTimeout", "inPlaceUpdateTimeout: 30m}", "inPlaceUpdateTimeout: 30m, disableHealthTimeout: true}",
                        List.of("spec.machineControllerManager.disableHealthTimeout")),
                Arguments.of("cluster maintenance", "  machineImages:", "  maintenance: {windows: [{schedule: \"0 0 2 ? * SAT\", duration: 2h}]}\n  machineImages:",
                        List.of()),
                Arguments.of("cluster rollingUpdate defaults the pool overrides", "  machineImages:", "  rollingUpdate: {maxSurge: 3, maxUnavailable: 2}\n  machineImages:",
                        List.of()));
    }

    @ParameterizedTest(name = "{0} changes nothing on the nodes")
    @MethodSource("fieldsThatChangeOnlyHowNightshiftUpdates")
    void aFieldThatChangesOnlyHowNightshiftUpdatesGivesNoneAndKeepsBothHashes(String field, String from, String to, List<String> paths) {
        PoolDecision d = decide(ROLLING, edit(ROLLING, from, to));

        assertThat(d.action()).isEqualTo(PoolAction.NONE);
        assertThat(d.reasons()).extracting(Reason::path).containsExactlyInAnyOrderElementsOf(paths);
        assertThat(d.reasons()).allSatisfy(r -> assertThat(r.effect()).isEqualTo(Effect.NONE));
        assertThat(d.rollHashNew()).isEqualTo(d.rollHashOld());
        assertThat(d.kubeletHashNew()).isEqualTo(d.kubeletHashOld());
    }

    @Test
    void aClusterRollingUpdateDefaultThePoolInheritsGivesNone() {
        String inheriting = edit(edit(ROLLING, "  maxSurge: 1\n  maxUnavailable: 0\n", ""),
                "  machineImages:", "  rollingUpdate: {maxSurge: 1, maxUnavailable: 0}\n  machineImages:");

        PoolDecision d = decide(inheriting, edit(inheriting, "rollingUpdate: {maxSurge: 1, maxUnavailable: 0}", "rollingUpdate: {maxSurge: 2, maxUnavailable: 1}"));

        assertThat(d.action()).isEqualTo(PoolAction.NONE);
        assertThat(d.reasons()).extracting(Reason::path, Reason::oldValue, Reason::newValue, Reason::effect).containsExactlyInAnyOrder(
                tuple("spec.maxSurge", "1", "2", Effect.NONE),
                tuple("spec.maxUnavailable", "0", "1", Effect.NONE));
    }

    @Test
    void switchingBetweenTheTwoInPlaceStrategiesGivesNone() {
        PoolDecision d = decide(IN_PLACE, edit(IN_PLACE, "updateStrategy: AutoInPlaceUpdate", "updateStrategy: ManualInPlaceUpdate"));

        assertThat(d.action()).isEqualTo(PoolAction.NONE);
        assertThat(d.reasons()).extracting(Reason::path, Reason::oldValue, Reason::newValue, Reason::effect)
                .containsExactly(tuple("spec.updateStrategy", "AutoInPlaceUpdate", "ManualInPlaceUpdate", Effect.NONE));
        assertThat(d.rollHashNew()).isEqualTo(d.rollHashOld());
    }

    @Test
    void switchingFromReplaceBackToAutoRollingUpdateGivesNone() {
        String replace = edit(ROLLING, "updateStrategy: AutoRollingUpdate", "updateStrategy: Replace");

        PoolDecision d = decide(replace, ROLLING);

        assertThat(d.action()).isEqualTo(PoolAction.NONE);
        assertThat(d.reasons()).extracting(Reason::path, Reason::effect).containsExactly(tuple("spec.updateStrategy", Effect.NONE));
    }

    @Nested
    class Precedence {

        @Test
        void rollWinsOverKubeletRestartPropagateAndNoneAndEveryReasonIsListed() {
            String changed = edit(edit(edit(edit(ROLLING, IMAGE_1631, IMAGE_1632), K8S_1_31_4, K8S_1_31_5),
                    "labels: {tier: frontend}", "labels: {tier: backend}"), "maximum: 6", "maximum: 8");

            PoolDecision d = decide(ROLLING, changed);

            assertThat(d.action()).isEqualTo(PoolAction.ROLL);
            assertThat(d.reasons()).extracting(Reason::path, Reason::oldValue, Reason::newValue, Reason::effect).containsExactlyInAnyOrder(
                    tuple("spec.machine.image.version", "1631.0.0", "1632.0.0", Effect.ROLL),
                    tuple("spec.kubernetes.version", "1.31.4", "1.31.5", Effect.KUBELET_RESTART),
                    tuple("spec.labels.tier", "frontend", "backend", Effect.PROPAGATE),
                    tuple("spec.maximum", "6", "8", Effect.NONE));
        }

        @Test
        void inPlaceWinsOverKubeletRestartAndPropagate() {
            String changed = edit(edit(edit(IN_PLACE, IMAGE_1631, IMAGE_1632), K8S_1_31_4, K8S_1_31_5),
                    "annotations: {owner: team-web}", "annotations: {owner: team-gpu}");

            PoolDecision d = decide(IN_PLACE, changed);

            assertThat(d.action()).isEqualTo(PoolAction.IN_PLACE);
            assertThat(d.reasons()).extracting(Reason::path, Reason::effect).containsExactlyInAnyOrder(
                    tuple("spec.machine.image.version", Effect.IN_PLACE),
                    tuple("spec.kubernetes.version", Effect.KUBELET_RESTART),
                    tuple("metadata.annotations.owner", Effect.PROPAGATE));
        }

        @Test
        void kubeletRestartWinsOverPropagateAndNone() {
            String changed = edit(edit(edit(ROLLING, K8S_1_31_4, K8S_1_31_5), "value: web", "value: api"), "interval: 15s", "interval: 30s");

            PoolDecision d = decide(ROLLING, changed);

            assertThat(d.action()).isEqualTo(PoolAction.KUBELET_RESTART);
            assertThat(d.reasons()).extracting(Reason::path, Reason::effect).containsExactlyInAnyOrder(
                    tuple("spec.kubernetes.version", Effect.KUBELET_RESTART),
                    tuple("spec.taints.dedicated:NoSchedule", Effect.PROPAGATE),
                    tuple("spec.interval", Effect.NONE));
        }

        @Test
        void propagateWinsOverNone() {
            String changed = edit(edit(ROLLING, "labels: {tier: frontend}", "labels: {tier: backend}"), "minimum: 3", "minimum: 1");

            PoolDecision d = decide(ROLLING, changed);

            assertThat(d.action()).isEqualTo(PoolAction.PROPAGATE);
            assertThat(d.reasons()).extracting(Reason::path, Reason::effect).containsExactlyInAnyOrder(
                    tuple("spec.labels.tier", Effect.PROPAGATE),
                    tuple("spec.minimum", Effect.NONE));
        }

        @Test
        void rejectedWinsOverRollAndTheRollReasonIsStillListed() {
            String changed = edit(edit(ROLLING, IMAGE_1631, IMAGE_1632), K8S_1_31_4, "version: \"1.31.3\"");

            PoolDecision d = decide(ROLLING, changed);

            assertThat(d.action()).isEqualTo(PoolAction.REJECTED);
            assertThat(d.reasons()).extracting(Reason::path, Reason::effect).containsExactlyInAnyOrder(
                    tuple("spec.kubernetes.version", Effect.REJECTED),
                    tuple("spec.kubernetes.version", Effect.KUBELET_RESTART),
                    tuple("spec.machine.image.version", Effect.ROLL));
        }
    }

    @Nested
    class CreateAndDelete {

        private static final String BATCH = """
                ---
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: batch, cluster: prod}
                spec:
                  minimum: 0
                  maximum: 4
                  machine: {type: c5.xlarge, image: {name: gardenlinux, version: 1631.0.0}}
                """;

        @Test
        void aPoolOnlyInTheNewSpecIsCreated() {
            DiffReport report = new SpecDiff().diff(TestSpecs.load(ROLLING), TestSpecs.load(ROLLING + BATCH));

            assertThat(report.pools()).extracting(PoolDecision::pool, PoolDecision::action)
                    .containsExactly(tuple("batch", PoolAction.CREATE), tuple("web", PoolAction.NONE));
            PoolDecision batch = report.pools().get(0);
            assertThat(batch.rollHashOld()).isEmpty();
            assertThat(batch.kubeletHashOld()).isEmpty();
            assertThat(batch.rollHashNew()).isPresent();
            assertThat(batch.kubeletHashNew()).isPresent();
            assertThat(batch.reasons()).isEmpty();
        }

        @Test
        void aPoolOnlyInTheOldSpecIsDeleted() {
            DiffReport report = new SpecDiff().diff(TestSpecs.load(ROLLING + BATCH), TestSpecs.load(ROLLING));

            assertThat(report.pools()).extracting(PoolDecision::pool, PoolDecision::action)
                    .containsExactly(tuple("batch", PoolAction.DELETE), tuple("web", PoolAction.NONE));
            PoolDecision batch = report.pools().get(0);
            assertThat(batch.rollHashOld()).isPresent();
            assertThat(batch.rollHashNew()).isEmpty();
            assertThat(batch.kubeletHashNew()).isEmpty();
            assertThat(batch.reasons()).extracting(Reason::path, Reason::oldValue, Reason::newValue, Reason::effect)
                    .containsExactly(tuple("metadata.name", "batch", "", Effect.NONE));
        }

        @Test
        void everyPoolOfANewClusterIsCreated() {
            DiffReport report = new SpecDiff().diff(dev.nightshift.spec.model.SpecSet.EMPTY, TestSpecs.load(ROLLING + BATCH));

            assertThat(report.pools()).extracting(PoolDecision::pool, PoolDecision::action)
                    .containsExactly(tuple("batch", PoolAction.CREATE), tuple("web", PoolAction.CREATE));
        }

        @Test
        void movingAPoolToAnotherClusterDeletesItThereAndCreatesItHere() {
            String otherCluster = edit(CLUSTER, "metadata: {name: prod}", "metadata: {name: staging}")
                    + edit(TestSpecs.POOL, "cluster: prod", "cluster: staging");

            DiffReport report = new SpecDiff().diff(TestSpecs.load(ROLLING), TestSpecs.load(otherCluster));

            assertThat(report.pools()).extracting(PoolDecision::cluster, PoolDecision::pool, PoolDecision::action)
                    .containsExactly(tuple("prod", "web", PoolAction.DELETE), tuple("staging", "web", PoolAction.CREATE));
        }

        @Test
        void aDeletedPoolIsNotARejection() {
            DiffReport report = new SpecDiff().diff(TestSpecs.load(ROLLING + BATCH), TestSpecs.load(ROLLING));

            assertThat(report.anyRejected()).isFalse();
        }
    }

    @Test
    void theSameSpecsAndHistoryAlwaysGiveTheSameReport() {
        String changed = edit(edit(ROLLING, IMAGE_1631, IMAGE_1632), "labels: {tier: frontend}", "labels: {tier: backend, a: b}");

        DiffReport first = new SpecDiff().diff(TestSpecs.load(ROLLING), TestSpecs.load(changed));
        DiffReport second = new SpecDiff().diff(TestSpecs.load(ROLLING), TestSpecs.load(changed));

        assertThat(second).isEqualTo(first);
    }
}
