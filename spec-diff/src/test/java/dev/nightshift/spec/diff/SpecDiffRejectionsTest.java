package dev.nightshift.spec.diff;

import static dev.nightshift.spec.diff.Decisions.decide;
import static dev.nightshift.spec.hash.TestSpecs.IN_PLACE;
import static dev.nightshift.spec.hash.TestSpecs.ROLLING;
import static dev.nightshift.spec.hash.TestSpecs.edit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import dev.nightshift.spec.hash.TestSpecs;

/** Every change that is refused, each with the exact reasons listed. */
class SpecDiffRejectionsTest {

    private static final String IMAGE_1631 = "image: {name: gardenlinux, version: 1631.0.0}";
    private static final String K8S_1_31_4 = "version: \"1.31.4\"";

    private static String image(String version) {
        return "image: {name: gardenlinux, version: " + version + "}";
    }

    @Nested
    class WithAnInPlaceStrategy {

        @Test
        void anImageNameChangeIsRejected() {
            PoolDecision d = decide(IN_PLACE, edit(IN_PLACE, IMAGE_1631, "image: {name: ubuntu, version: 1631.0.0}"));

            assertThat(d.action()).isEqualTo(PoolAction.REJECTED);
            assertThat(d.reasons()).extracting(Reason::path, Reason::oldValue, Reason::newValue, Reason::effect).containsExactlyInAnyOrder(
                    tuple("spec.machine.image.name", "gardenlinux", "ubuntu", Effect.REJECTED),
                    tuple("spec.machine.image.name", "gardenlinux", "ubuntu", Effect.IN_PLACE));
        }

        @Test
        void aMachineTypeChangeIsRejected() {
            PoolDecision d = decide(IN_PLACE, edit(IN_PLACE, "type: m5.large", "type: m5.xlarge"));

            assertThat(d.action()).isEqualTo(PoolAction.REJECTED);
            assertThat(d.reasons()).extracting(Reason::path, Reason::effect).containsExactlyInAnyOrder(
                    tuple("spec.machine.type", Effect.REJECTED),
                    tuple("spec.machine.type", Effect.IN_PLACE));
        }

        @Test
        void aVolumeTypeChangeIsRejected() {
            PoolDecision d = decide(IN_PLACE, edit(IN_PLACE, "volume: {type: gp3", "volume: {type: io1"));

            assertThat(d.action()).isEqualTo(PoolAction.REJECTED);
            assertThat(d.reasons()).extracting(Reason::path, Reason::effect).containsExactlyInAnyOrder(
                    tuple("spec.volume.type", Effect.REJECTED),
                    tuple("spec.volume.type", Effect.IN_PLACE));
        }

        @Test
        void aVolumeSizeChangeIsRejected() {
            PoolDecision d = decide(IN_PLACE, edit(IN_PLACE, "size: 50Gi", "size: 80Gi"));

            assertThat(d.action()).isEqualTo(PoolAction.REJECTED);
            assertThat(d.reasons()).extracting(Reason::path, Reason::oldValue, Reason::newValue, Reason::effect).containsExactlyInAnyOrder(
                    tuple("spec.volume.size", "50Gi", "80Gi", Effect.REJECTED),
                    tuple("spec.volume.size", "50Gi", "80Gi", Effect.IN_PLACE));
        }

        @Test
        void aVolumeSizeRespelledWithTheSameAmountIsNotAChange() {
            PoolDecision d = decide(IN_PLACE, edit(IN_PLACE, "size: 50Gi", "size: 51200Mi"));

            assertThat(d.action()).isEqualTo(PoolAction.NONE);
            assertThat(d.reasons()).isEmpty();
        }

        @Test
        void aCriChangeIsRejected() {
            PoolDecision d = decide(IN_PLACE, edit(IN_PLACE, "cri: {name: containerd}", "cri: {name: docker}"));

            assertThat(d.action()).isEqualTo(PoolAction.REJECTED);
            assertThat(d.reasons()).extracting(Reason::path, Reason::effect).containsExactlyInAnyOrder(
                    tuple("spec.cri.name", Effect.REJECTED),
                    tuple("spec.cri.name", Effect.IN_PLACE));
        }

        @Test
        void aNodeLocalDnsChangeIsRejected() {
            PoolDecision d = decide(IN_PLACE, edit(IN_PLACE, "nodeLocalDNS: {enabled: false}", "nodeLocalDNS: {enabled: true}"));

            assertThat(d.action()).isEqualTo(PoolAction.REJECTED);
            assertThat(d.reasons()).extracting(Reason::path, Reason::oldValue, Reason::newValue, Reason::effect).containsExactlyInAnyOrder(
                    tuple("cluster.spec.systemComponents.nodeLocalDNS.enabled", "false", "true", Effect.REJECTED),
                    tuple("cluster.spec.systemComponents.nodeLocalDNS.enabled", "false", "true", Effect.IN_PLACE));
        }

        @Test
        void theSameChangesOnARollingPoolRollInsteadOfBeingRejected() {
            String changed = edit(edit(edit(ROLLING, "type: m5.large", "type: m5.xlarge"), "cri: {name: containerd}", "cri: {name: docker}"),
                    "nodeLocalDNS: {enabled: false}", "nodeLocalDNS: {enabled: true}");

            PoolDecision d = decide(ROLLING, changed);

            assertThat(d.action()).isEqualTo(PoolAction.ROLL);
            assertThat(d.reasons()).extracting(Reason::path, Reason::effect).containsExactlyInAnyOrder(
                    tuple("spec.machine.type", Effect.ROLL),
                    tuple("spec.cri.name", Effect.ROLL),
                    tuple("cluster.spec.systemComponents.nodeLocalDNS.enabled", Effect.ROLL));
        }

        @Test
        void everyRejectedFieldIsListedNotOnlyTheFirst() {
            String changed = edit(edit(IN_PLACE, "type: m5.large", "type: m5.xlarge"), "volume: {type: gp3, size: 50Gi}", "volume: {type: io1, size: 60Gi}");

            PoolDecision d = decide(IN_PLACE, changed);

            assertThat(d.action()).isEqualTo(PoolAction.REJECTED);
            assertThat(d.reasons()).extracting(Reason::path, Reason::effect).containsExactlyInAnyOrder(
                    tuple("spec.machine.type", Effect.REJECTED),
                    tuple("spec.volume.type", Effect.REJECTED),
                    tuple("spec.volume.size", Effect.REJECTED),
                    tuple("spec.machine.type", Effect.IN_PLACE),
                    tuple("spec.volume.type", Effect.IN_PLACE),
                    tuple("spec.volume.size", Effect.IN_PLACE));
        }

        @Test
        void everyRejectionSaysWhy() {
            PoolDecision d = decide(IN_PLACE, edit(IN_PLACE, "type: m5.large", "type: m5.xlarge"));

            assertThat(d.reasons()).filteredOn(r -> r.effect() == Effect.REJECTED)
                    .isNotEmpty()
                    .allSatisfy(r -> assertThat(r.message()).isNotBlank());
        }
    }

    @Nested
    class InPlaceImageVersions {

        @Test
        void aVersionMissingFromTheCatalogIsRejected() {
            PoolDecision d = decide(IN_PLACE, edit(IN_PLACE, IMAGE_1631, image("1650.0.0")));

            assertThat(d.action()).isEqualTo(PoolAction.REJECTED);
            assertThat(d.reasons()).extracting(Reason::path, Reason::oldValue, Reason::newValue, Reason::effect).containsExactlyInAnyOrder(
                    tuple("spec.machine.image.version", "1631.0.0", "1650.0.0", Effect.REJECTED),
                    tuple("spec.machine.image.version", "1631.0.0", "1650.0.0", Effect.IN_PLACE));
        }

        @Test
        void aVersionMarkedNotSupportedIsRejected() {
            PoolDecision d = decide(IN_PLACE, edit(IN_PLACE, IMAGE_1631, image("1633.0.0")));

            assertThat(d.action()).isEqualTo(PoolAction.REJECTED);
            assertThat(d.reasons()).extracting(Reason::path, Reason::effect).containsExactlyInAnyOrder(
                    tuple("spec.machine.image.version", Effect.REJECTED),
                    tuple("spec.machine.image.version", Effect.IN_PLACE));
        }

        @Test
        void aVersionWithoutInPlaceUpdatesInTheCatalogIsRejected() {
            PoolDecision d = decide(IN_PLACE, edit(IN_PLACE, IMAGE_1631, image("1640.0.0")));

            assertThat(d.action()).isEqualTo(PoolAction.REJECTED);
            assertThat(d.reasons()).extracting(Reason::path, Reason::effect).containsExactlyInAnyOrder(
                    tuple("spec.machine.image.version", Effect.REJECTED),
                    tuple("spec.machine.image.version", Effect.IN_PLACE));
        }

        @Test
        void anUpdateFromBelowTheTargetsMinVersionForUpdateIsRejected() {
            String at1630 = edit(IN_PLACE, IMAGE_1631, image("1630.0.0"));

            PoolDecision d = decide(at1630, edit(at1630, image("1630.0.0"), image("1632.0.0")));

            assertThat(d.action()).isEqualTo(PoolAction.REJECTED);
            assertThat(d.reasons()).extracting(Reason::path, Reason::oldValue, Reason::newValue, Reason::effect).containsExactlyInAnyOrder(
                    tuple("spec.machine.image.version", "1630.0.0", "1632.0.0", Effect.REJECTED),
                    tuple("spec.machine.image.version", "1630.0.0", "1632.0.0", Effect.IN_PLACE));
        }

        @Test
        void anUpdateFromExactlyTheTargetsMinVersionForUpdateIsAllowed() {
            PoolDecision d = decide(IN_PLACE, edit(IN_PLACE, IMAGE_1631, image("1632.0.0")));

            assertThat(d.action()).isEqualTo(PoolAction.IN_PLACE);
        }

        @Test
        void aRollingPoolMayMoveToAVersionOutsideTheCatalog() {
            PoolDecision d = decide(ROLLING, edit(ROLLING, IMAGE_1631, image("1650.0.0")));

            assertThat(d.action()).isEqualTo(PoolAction.ROLL);
        }
    }

    @Nested
    class StrategyFamilies {

        @Test
        void switchingFromAutoRollingUpdateToAutoInPlaceUpdateIsRejected() {
            PoolDecision d = decide(ROLLING, edit(ROLLING, "updateStrategy: AutoRollingUpdate", "updateStrategy: AutoInPlaceUpdate"));

            assertThat(d.action()).isEqualTo(PoolAction.REJECTED);
            assertThat(d.reasons()).extracting(Reason::path, Reason::oldValue, Reason::newValue, Reason::effect).containsExactly(
                    tuple("spec.updateStrategy", "AutoRollingUpdate", "AutoInPlaceUpdate", Effect.REJECTED),
                    // Its default follows the strategy family: the effective value changes with it, and is said so.
                    tuple("spec.machineControllerManager.disableHealthTimeout", "false", "true", Effect.NONE));
        }

        @Test
        void switchingFromAutoInPlaceUpdateToReplaceIsRejected() {
            PoolDecision d = decide(IN_PLACE, edit(IN_PLACE, "updateStrategy: AutoInPlaceUpdate", "updateStrategy: Replace"));

            assertThat(d.action()).isEqualTo(PoolAction.REJECTED);
            assertThat(d.reasons()).extracting(Reason::path, Reason::effect).containsExactly(
                    tuple("spec.updateStrategy", Effect.REJECTED),
                    tuple("spec.machineControllerManager.disableHealthTimeout", Effect.NONE));
        }

        @Test
        void switchingFromManualInPlaceUpdateToAutoRollingUpdateIsRejected() {
            String manual = edit(IN_PLACE, "updateStrategy: AutoInPlaceUpdate", "updateStrategy: ManualInPlaceUpdate");

            PoolDecision d = decide(manual, edit(manual, "updateStrategy: ManualInPlaceUpdate", "updateStrategy: AutoRollingUpdate"));

            assertThat(d.action()).isEqualTo(PoolAction.REJECTED);
            assertThat(d.reasons()).extracting(Reason::path, Reason::effect).containsExactly(
                    tuple("spec.updateStrategy", Effect.REJECTED),
                    tuple("spec.machineControllerManager.disableHealthTimeout", Effect.NONE));
        }

        @Test
        void aRollInputChangedTogetherWithAFamilySwitchIsListedWithTheNewStrategysEffect() {
            String changed = edit(edit(ROLLING, "updateStrategy: AutoRollingUpdate", "updateStrategy: AutoInPlaceUpdate"), "type: m5.large", "type: c5.large");

            PoolDecision d = decide(ROLLING, changed);

            assertThat(d.action()).isEqualTo(PoolAction.REJECTED);
            assertThat(d.reasons()).extracting(Reason::path, Reason::effect).containsExactlyInAnyOrder(
                    tuple("spec.updateStrategy", Effect.REJECTED),
                    tuple("spec.machine.type", Effect.IN_PLACE),
                    tuple("spec.machineControllerManager.disableHealthTimeout", Effect.NONE));
        }
    }

    @Nested
    class KubernetesVersions {

        @Test
        void aMinorDowngradeIsRejected() {
            PoolDecision d = decide(ROLLING, edit(ROLLING, K8S_1_31_4, "version: \"1.30.4\""));

            assertThat(d.action()).isEqualTo(PoolAction.REJECTED);
            assertThat(d.reasons()).extracting(Reason::path, Reason::oldValue, Reason::newValue, Reason::effect).containsExactlyInAnyOrder(
                    tuple("spec.kubernetes.version", "1.31.4", "1.30.4", Effect.REJECTED),
                    tuple("spec.kubernetes.version(minor)", "1.31", "1.30", Effect.ROLL),
                    tuple("spec.kubernetes.version", "1.31.4", "1.30.4", Effect.KUBELET_RESTART));
        }

        @Test
        void aPatchDowngradeIsRejected() {
            PoolDecision d = decide(ROLLING, edit(ROLLING, K8S_1_31_4, "version: \"1.31.3\""));

            assertThat(d.action()).isEqualTo(PoolAction.REJECTED);
            assertThat(d.reasons()).extracting(Reason::path, Reason::oldValue, Reason::newValue, Reason::effect).containsExactlyInAnyOrder(
                    tuple("spec.kubernetes.version", "1.31.4", "1.31.3", Effect.REJECTED),
                    tuple("spec.kubernetes.version", "1.31.4", "1.31.3", Effect.KUBELET_RESTART));
        }

        @Test
        void aMinorUpgradeThatSkipsAMinorIsRejected() {
            PoolDecision d = decide(ROLLING, edit(ROLLING, K8S_1_31_4, "version: \"1.33.0\""));

            assertThat(d.action()).isEqualTo(PoolAction.REJECTED);
            assertThat(d.reasons()).extracting(Reason::path, Reason::effect).containsExactlyInAnyOrder(
                    tuple("spec.kubernetes.version", Effect.REJECTED),
                    tuple("spec.kubernetes.version(minor)", Effect.ROLL),
                    tuple("spec.kubernetes.version", Effect.KUBELET_RESTART));
        }

        @Test
        void aMajorUpgradeIsRejected() {
            PoolDecision d = decide(ROLLING, edit(ROLLING, K8S_1_31_4, "version: \"2.0.0\""));

            assertThat(d.action()).isEqualTo(PoolAction.REJECTED);
            assertThat(d.reasons()).extracting(Reason::path, Reason::effect).contains(tuple("spec.kubernetes.version", Effect.REJECTED));
        }

        @Test
        void aPoolPinningAnOlderVersionThanItRanIsADowngrade() {
            String pinned = edit(ROLLING, "cri: {name: containerd}", "cri: {name: containerd}\n  kubernetes: {version: \"1.30.9\"}");

            PoolDecision d = decide(ROLLING, pinned);

            assertThat(d.action()).isEqualTo(PoolAction.REJECTED);
            assertThat(d.reasons()).extracting(Reason::path, Reason::oldValue, Reason::newValue, Reason::effect).containsExactlyInAnyOrder(
                    tuple("spec.kubernetes.version", "1.31.4", "1.30.9", Effect.REJECTED),
                    tuple("spec.kubernetes.version(minor)", "1.31", "1.30", Effect.ROLL),
                    tuple("spec.kubernetes.version", "1.31.4", "1.30.9", Effect.KUBELET_RESTART));
        }

        @Test
        void aPoolDroppingItsOwnVersionToInheritOneTwoMinorsAboveIsASkip() {
            String pinned = edit(ROLLING, "cri: {name: containerd}", "cri: {name: containerd}\n  kubernetes: {version: \"1.29.9\"}");

            PoolDecision d = decide(pinned, ROLLING);

            assertThat(d.action()).isEqualTo(PoolAction.REJECTED);
            assertThat(d.reasons()).extracting(Reason::path, Reason::effect).contains(tuple("spec.kubernetes.version", Effect.REJECTED));
        }

        @Test
        void aDowngradeOfAnInPlacePoolIsRejectedToo() {
            PoolDecision d = decide(IN_PLACE, edit(IN_PLACE, K8S_1_31_4, "version: \"1.30.4\""));

            assertThat(d.action()).isEqualTo(PoolAction.REJECTED);
            assertThat(d.reasons()).extracting(Reason::path, Reason::effect).containsExactlyInAnyOrder(
                    tuple("spec.kubernetes.version", Effect.REJECTED),
                    tuple("spec.kubernetes.version(minor)", Effect.IN_PLACE),
                    tuple("spec.kubernetes.version", Effect.KUBELET_RESTART));
        }

        @Test
        void aOneMinorUpgradeIsAllowed() {
            PoolDecision d = decide(ROLLING, edit(ROLLING, K8S_1_31_4, "version: \"1.32.7\""));

            assertThat(d.action()).isEqualTo(PoolAction.ROLL);
        }
    }

    @Test
    void aReportWithOneRejectedPoolSaysSo() {
        DiffReport report = new SpecDiff().diff(TestSpecs.load(ROLLING), TestSpecs.load(edit(ROLLING, K8S_1_31_4, "version: \"1.31.3\"")));

        assertThat(report.anyRejected()).isTrue();
        assertThat(report.pools()).singleElement().satisfies(d -> assertThat(d.rejected()).isTrue());
    }
}
