package dev.nightshift.spec.hash;

import static dev.nightshift.spec.hash.TestSpecs.ROLLING;
import static dev.nightshift.spec.hash.TestSpecs.edit;
import static dev.nightshift.spec.hash.TestSpecs.kubelet;
import static dev.nightshift.spec.hash.TestSpecs.roll;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** What only restarts the kubelet (patch releases, reservations moved with the same sum) and what rolls. */
class KubeletHashTest {

    private static final String POOL_PINNED_TO_1_30_2 =
            edit(ROLLING, "cri: {name: containerd}", "cri: {name: containerd}\n  kubernetes: {version: \"1.30.2\"}");

    @Nested
    class PatchAndMinor {

        @Test
        void aPatchReleaseChangesTheKubeletHashButNotTheRollHash() {
            String patched = edit(ROLLING, "version: \"1.31.4\"", "version: \"1.31.5\"");

            assertThat(roll(patched)).isEqualTo(roll(ROLLING));
            assertThat(kubelet(patched)).isNotEqualTo(kubelet(ROLLING));
        }

        @Test
        void aMinorReleaseChangesBothHashes() {
            String upgraded = edit(ROLLING, "version: \"1.31.4\"", "version: \"1.32.0\"");

            assertThat(roll(upgraded)).isNotEqualTo(roll(ROLLING));
            assertThat(kubelet(upgraded)).isNotEqualTo(kubelet(ROLLING));
        }

        @Test
        void aPatchReleaseOfThePoolsOwnVersionChangesOnlyTheKubeletHash() {
            String patched = edit(POOL_PINNED_TO_1_30_2, "version: \"1.30.2\"", "version: \"1.30.3\"");

            assertThat(roll(patched)).isEqualTo(roll(POOL_PINNED_TO_1_30_2));
            assertThat(kubelet(patched)).isNotEqualTo(kubelet(POOL_PINNED_TO_1_30_2));
        }
    }

    @Nested
    class PoolVersionOverridesClusterVersion {

        @Test
        void aClusterMinorUpgradeDoesNotChangeTheRollHashOfAPoolWithItsOwnVersion() {
            String clusterUpgraded = edit(POOL_PINNED_TO_1_30_2, "version: \"1.31.4\"", "version: \"1.32.1\"");

            assertThat(roll(clusterUpgraded)).isEqualTo(roll(POOL_PINNED_TO_1_30_2));
        }

        @Test
        void aClusterPatchDoesNotChangeTheKubeletHashOfAPoolWithItsOwnVersion() {
            String clusterPatched = edit(POOL_PINNED_TO_1_30_2, "version: \"1.31.4\"", "version: \"1.31.6\"");

            assertThat(kubelet(clusterPatched)).isEqualTo(kubelet(POOL_PINNED_TO_1_30_2));
        }

        @Test
        void aPoolPinnedToTheClustersExactVersionHashesLikeOneThatInheritsIt() {
            String pinnedToSame = edit(ROLLING, "cri: {name: containerd}", "cri: {name: containerd}\n  kubernetes: {version: \"1.31.4\"}");

            assertThat(roll(pinnedToSame)).isEqualTo(roll(ROLLING));
            assertThat(kubelet(pinnedToSame)).isEqualTo(kubelet(ROLLING));
        }

        @Test
        void aPoolPinnedToAnOlderMinorHashesDifferentlyFromOneThatInheritsTheClusters() {
            assertThat(roll(POOL_PINNED_TO_1_30_2)).isNotEqualTo(roll(ROLLING));
        }
    }

    @Nested
    class ReservedSum {

        @Test
        void movingMemoryFromKubeReservedToSystemReservedKeepsTheRollHash() {
            String moved = edit(edit(ROLLING, "kubeReserved: {cpu: 80m, memory: 1Gi}", "kubeReserved: {cpu: 80m, memory: 512Mi}"),
                    "systemReserved: {memory: 512Mi}", "systemReserved: {memory: 1Gi}");

            assertThat(roll(moved)).isEqualTo(roll(ROLLING));
        }

        @Test
        void movingMemoryFromKubeReservedToSystemReservedChangesTheKubeletHash() {
            String moved = edit(edit(ROLLING, "kubeReserved: {cpu: 80m, memory: 1Gi}", "kubeReserved: {cpu: 80m, memory: 512Mi}"),
                    "systemReserved: {memory: 512Mi}", "systemReserved: {memory: 1Gi}");

            assertThat(kubelet(moved)).isNotEqualTo(kubelet(ROLLING));
        }

        @Test
        void movingAWholeResourceToTheOtherMapKeepsTheRollHash() {
            String moved = edit(edit(ROLLING, "kubeReserved: {cpu: 80m, memory: 1Gi}", "kubeReserved: {memory: 1Gi}"),
                    "systemReserved: {memory: 512Mi}", "systemReserved: {memory: 512Mi, cpu: 80m}");

            assertThat(roll(moved)).isEqualTo(roll(ROLLING));
        }

        @Test
        void puttingEverythingInSystemReservedKeepsTheRollHash() {
            String allSystem = edit(edit(ROLLING, "kubeReserved: {cpu: 80m, memory: 1Gi}", "kubeReserved: {}"),
                    "systemReserved: {memory: 512Mi}", "systemReserved: {cpu: 0.08, memory: 1536Mi}");

            assertThat(roll(allSystem)).isEqualTo(roll(ROLLING));
        }

        @Test
        void aMoveThroughAPoolOverrideWithTheSameEffectiveSumKeepsTheRollHash() {
            // The pool reserves the cluster's 1Gi + 512Mi of memory as 0 + 1536Mi.
            String override = edit(ROLLING, "cri: {name: containerd}",
                    "cri: {name: containerd}\n  kubernetes: {kubelet: {kubeReserved: {cpu: 80m}, systemReserved: {memory: 1536Mi}}}");

            assertThat(roll(override)).isEqualTo(roll(ROLLING));
            assertThat(kubelet(override)).isNotEqualTo(kubelet(ROLLING));
        }

        @Test
        void aMoveThatChangesTheSumChangesTheRollHash() {
            String notAMove = edit(edit(ROLLING, "kubeReserved: {cpu: 80m, memory: 1Gi}", "kubeReserved: {cpu: 80m, memory: 512Mi}"),
                    "systemReserved: {memory: 512Mi}", "systemReserved: {memory: 768Mi}");

            assertThat(roll(notAMove)).isNotEqualTo(roll(ROLLING));
        }
    }

    @Nested
    class WhatTheKubeletHashIgnores {

        @Test
        void machineImageChangesRollButNotTheKubeletHash() {
            String changed = edit(ROLLING, "image: {name: gardenlinux, version: 1631.0.0}", "image: {name: gardenlinux, version: 1632.0.0}");

            assertThat(kubelet(changed)).isEqualTo(kubelet(ROLLING));
        }

        @Test
        void kubeletFieldsThatAreAlsoRollInputsChangeTheKubeletHashToo() {
            String changed = edit(ROLLING, "cpuManagerPolicy: none", "cpuManagerPolicy: static");

            assertThat(kubelet(changed)).isNotEqualTo(kubelet(ROLLING));
        }
    }
}
